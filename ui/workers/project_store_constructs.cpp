// ProjectStore's constructs and selections of designs (project_store.h), on the store's thread.
#include <QLocale>

#include "carbon/storage/project.h"
#include "project_store.h"

namespace carbon::ui {

namespace st = carbon::storage;

void ProjectStore::addConstruct(quint64 token, const st::ConstructRecord& construct) {
    if (!requireOpen(tr("Add construct"))) return;
    try {
        project_->add_construct(construct);
        project_->checkpoint();
        ConstructList all;
        for (st::ConstructRecord& c : project_->list_constructs()) all.append(std::move(c));
        emit constructAdded(token, QString::fromStdString(construct.name), all);
    } catch (const std::exception& e) {
        emit failed(tr("Add construct"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::chooseDesigns(quint64 token, const runs::DesignChoiceRequest& request) {
    if (!requireOpen(tr("Choose designs"))) return;
    try {
        const runs::DesignChoice c = runs::choose_designs(*project_, request);
        project_->checkpoint();
        const QLocale l;
        QString summary = tr("Selection '%1': %2 design(s) chosen of %3 (%4 after near-duplicates, %5 with a score)")
                              .arg(QString::fromStdString(request.name), l.toString(qulonglong(c.design_ids.size())),
                                   l.toString(qulonglong(c.candidates)), l.toString(qulonglong(c.after_near_duplicates)),
                                   l.toString(qulonglong(c.eligible)));
        if (c.design_ids.size() > 1)
            summary += tr("; the closest two are %1 apart (%2 distance, both strands)")
                           .arg(c.min_distance)
                           .arg(request.distance == SequenceDistance::Edit ? tr("edit") : tr("Hamming"));
        if (!c.note.empty()) summary += QStringLiteral(". ") + QString::fromStdString(c.note);
        SelectionList all;
        st::SelectionRecord chosen;
        for (st::SelectionRecord& s : project_->list_selections()) {
            if (s.id == c.selection_id) chosen = s;
            all.append(std::move(s));
        }
        emit designsChosen(token, chosen, summary, all);
    } catch (const std::exception& e) {
        emit failed(tr("Choose designs"), QString::fromUtf8(e.what()));
    }
}

}  // namespace carbon::ui
