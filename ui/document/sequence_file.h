// Reading a sequence file for the editor: FASTA (plain or gzip) through storage's FastaReader, so
// the editor refuses what carbon-cli and the project import refuse, with the same FILE:LINE:COL
// messages; a file without a '>' header is taken as bare bases and must hold only IUPAC letters
// and blanks. Core only, no widgets.
#pragma once

#include <QByteArray>
#include <QString>

namespace carbon::ui {

struct SequenceFile {
    QByteArray bases;  // upper-case IUPAC letters of the first record
    QString name;      // the first record's name ("" for bare bases)
    int records = 0;   // records in the file (1 for bare bases)
};

// Throws carbon::Error naming the file, line and column of what is wrong, or that the file is too
// large for the editor (over 512 MiB: import it into a project instead).
SequenceFile readSequenceFile(const QString& path);

}  // namespace carbon::ui
