// fileKind and acceptsDrop (see file_kind.h).
#include "file_kind.h"

#include <QFile>
#include <QFileInfo>
#include <initializer_list>

#include "carbon/storage/flatfile.h"
#include "views/vep_result.h"

namespace carbon::ui {

namespace {

bool hasSuffix(const QString& path, std::initializer_list<const char*> suffixes) {
    const QString lower = path.toLower();
    for (const char* s : suffixes)
        if (lower.endsWith(QLatin1String(s))) return true;
    return false;
}
bool isProjectFile(const QString& p) { return hasSuffix(p, {".carbon"}); }
bool isVcfFile(const QString& p) { return hasSuffix(p, {".vcf", ".vcf.gz"}); }
bool isFastaFile(const QString& p) {
    return hasSuffix(p, {".fa", ".fasta", ".fna", ".fas", ".txt", ".fa.gz", ".fasta.gz", ".fna.gz"});
}
// GenBank / EMBL by name, or by content whatever the name (SnapGene and Benchling exports are
// .gb, .gbk, .genbank; ENA's .embl, .dat; NCBI's division files .seq).
bool isFlatFile(const QString& p) {
    if (hasSuffix(p, {".gb", ".gbk", ".genbank", ".gbff", ".embl", ".gb.gz", ".gbk.gz", ".gbff.gz", ".embl.gz"})) return true;
    QFile f(p);
    if (!f.open(QIODevice::ReadOnly)) return false;
    return carbon::storage::looks_like_flat_file(f.read(64 * 1024).toStdString());
}

}  // namespace

FileKind fileKind(const QString& path) {
    if (QFileInfo(path).isDir()) return FileKind::ModelFolder;
    if (isProjectFile(path)) return FileKind::Project;
    if (looksLikeVepResult(path)) return FileKind::VepResult;
    if (isVcfFile(path)) return FileKind::Vcf;
    if (isFlatFile(path)) return FileKind::FlatFile;
    return FileKind::Fasta;
}

bool acceptsDrop(const QString& p) {
    return isProjectFile(p) || isVcfFile(p) || isFastaFile(p) || isFlatFile(p) || looksLikeVepResult(p);
}

}  // namespace carbon::ui
