// What a path given to the window is (dropped on it, or named on the command line), so that it
// goes to the controller that opens it: a model folder, a project, a vep result, a VCF, an
// annotated GenBank / EMBL file (by name, or by content whatever the name) or, otherwise, FASTA.
#pragma once

#include <QString>

namespace carbon::ui {

enum class FileKind { ModelFolder, Project, VepResult, Vcf, FlatFile, Fasta };

FileKind fileKind(const QString& path);
// Whether a drop of this file is taken: one of the kinds above by its name or content (a folder
// is opened from the model manager instead).
bool acceptsDrop(const QString& path);

}  // namespace carbon::ui
