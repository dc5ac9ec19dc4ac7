// readSequenceFile: FASTA through storage's reader, bare bases checked letter by letter.
#include "sequence_file.h"

#include <QFile>
#include <QFileInfo>
#include <cstdio>

#include "carbon/storage/fasta.h"
#include "carbon/support/common.h"
#include "sequence_document.h"

namespace carbon::ui {

namespace {
constexpr qint64 kMaxEditorBytes = qint64(512) << 20;
}  // namespace

SequenceFile readSequenceFile(const QString& path) {
    const std::string file = path.toStdString();
    // Checked before opening: opening a named pipe would wait for a writer forever.
    const QFileInfo info(path);
    if (info.exists() && !info.isFile())
        throw Error(file + ": not a regular file (" + (info.isDir() ? "a folder" : "a pipe or device") + "); save it to a file first");
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) throw Error(file + ": cannot open: " + f.errorString().toStdString());
    if (f.size() > kMaxEditorBytes)
        throw Error(file + ": " + std::to_string(f.size() >> 20) + " MiB is more than the editor opens at once (512 MiB): "
                    "import it into a project (File > Import FASTA) instead");
    // FASTA, plain or gzip: its first non-blank byte is '>', or the gzip magic.
    const QByteArray head = f.peek(4096);
    qsizetype first = 0;
    while (first < head.size() && (head[first] == ' ' || head[first] == '\t' || head[first] == '\r' || head[first] == '\n')) ++first;
    const bool gzip = head.startsWith("\x1f\x8b");
    SequenceFile out;
    if (gzip || (first < head.size() && head[first] == '>')) {
        f.close();
        storage::FastaReader reader(file);
        storage::FastaEntry e;
        if (!reader.next(e)) throw Error(file + ": no FASTA record");
        out.bases = SequenceDocument::normalizeBases(QByteArray::fromStdString(e.bases));
        out.name = QString::fromStdString(e.name);
        out.records = 1;
        storage::FastaEntry more;
        while (reader.next(more)) ++out.records;  // also checks the rest is well-formed
        return out;
    }
    // Bare bases: letters and blanks only; anything else is named where it is.
    const QByteArray text = f.readAll();
    size_t line = 1, col = 1;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n' || c == '\r') {  // LF, CRLF or a classic-Mac CR ends a line
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            ++line, col = 1;
            continue;
        }
        if (c != ' ' && c != '\t' && !storage::is_iupac_base(c)) {
            const unsigned char u = static_cast<unsigned char>(c);
            char what[40];
            if (u >= 0x21 && u < 0x7f) std::snprintf(what, sizeof what, "'%c'", c);
            else std::snprintf(what, sizeof what, "byte 0x%02x", u);
            throw Error(file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what +
                        " is not a base (IUPAC letters only; a FASTA file starts with '>')");
        }
        ++col;
    }
    out.bases = SequenceDocument::normalizeBases(text);
    if (out.bases.isEmpty()) throw Error(file + ": no bases in it");
    out.records = 1;
    return out;
}

}  // namespace carbon::ui
