// Imported GenBank / EMBL features in the editor: a stored feature table as editor regions (one
// annotation region per local part of each location, labelled with the key and the feature's
// name, carrying its key and qualifiers), and the table back from the regions after edits (a
// feature whose parts moved gets its location rewritten from them, its qualifiers as the regions
// carry them; one whose parts were all deleted is dropped; one that lies wholly in other entries
// is kept as it was).
#pragma once

#include <QList>
#include <vector>

#include "carbon/storage/project.h"
#include "sequence_document.h"

namespace carbon::ui {

// "promoter: lacP": the key and the feature's name (storage::feature_name), or the key alone.
QString featureLabel(const QString& key, const std::vector<std::pair<std::string, std::optional<std::string>>>& qualifiers);

QList<Region> featureRegions(const std::vector<carbon::storage::FeatureRecord>& features, qint64 length);

std::vector<carbon::storage::FeatureRecord> featuresFromRegions(const std::vector<carbon::storage::FeatureRecord>& stored,
                                                                const QList<Region>& regions);

}  // namespace carbon::ui
