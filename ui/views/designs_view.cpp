// DesignsView: wiring of the proxy (numeric sort role, bases and verdict filters) and the view.
#include "designs_view.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "design_table_model.h"

#include <optional>

namespace carbon::ui {

namespace {

// The filter box holds space-separated terms, all of which a design must meet: "FIELD OP NUMBER"
// (fields score, ranking, min, gc, len, rank, run, spec, objective, and each predicted output by
// its name, such as k562, the first column of that name where two predictors share it; ops < <= = >= >), "constraints=met|none", or any other text, which the
// bases must contain (case-insensitive). The verdict and run filters come on top. A design
// without a value in a numeric field fails a term on it.
struct FilterTerm {
    int column = -1;  // -1: a bases substring
    QString op;
    double value = 0;
    QString text;
};

QList<FilterTerm> parseFilter(const QString& text, const DesignTableModel& model, QString* error) {
    static const QHash<QString, int> fields = {
        {QStringLiteral("score"), DesignTableModel::DesignScoreColumn}, {QStringLiteral("ranking"), DesignTableModel::RankingScoreColumn},
        {QStringLiteral("min"), DesignTableModel::MinBaseScoreColumn},  {QStringLiteral("gc"), DesignTableModel::GcColumn},
        {QStringLiteral("len"), DesignTableModel::LengthColumn},        {QStringLiteral("rank"), DesignTableModel::RankColumn},
        {QStringLiteral("run"), DesignTableModel::RunColumn},           {QStringLiteral("constraints"), DesignTableModel::ConstraintsColumn},
        {QStringLiteral("spec"), DesignTableModel::SpecificityColumn},  {QStringLiteral("objective"), DesignTableModel::ObjectiveColumn},
        {QStringLiteral("synthesis"), DesignTableModel::SynthesisColumn}};
    static const QRegularExpression term(QStringLiteral("^([a-z][a-z0-9_.]*)(<=|>=|<|>|=)(.+)$"));
    QList<FilterTerm> out;
    for (const QString& t : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QRegularExpressionMatch m = term.match(t.toLower());
        const int column = !m.hasMatch()                    ? -1
                           : fields.contains(m.captured(1)) ? fields[m.captured(1)]
                                                            : model.predictionColumn(m.captured(1));
        if (column < 0) {
            out.append({-1, {}, 0, t});
            continue;
        }
        FilterTerm f;
        f.column = column;
        f.op = m.captured(2);
        if (f.column == DesignTableModel::ConstraintsColumn) {
            f.text = m.captured(3);
        } else {
            bool ok = false;
            f.value = m.captured(3).toDouble(&ok);
            if (!ok && error) *error = QObject::tr("'%1' is not a number in '%2'").arg(m.captured(3), t);
            if (!ok) continue;
        }
        out.append(f);
    }
    return out;
}

class DesignFilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setTerms(QList<FilterTerm> terms) {
        terms_ = std::move(terms);
        invalidateFilter();
    }
    void setFlagFilter(DesignsView::FlagFilter f) {
        flag_ = f;
        invalidateFilter();
    }
    void setRun(qint64 run) {
        run_ = run;
        invalidateFilter();
    }
    // Only the designs of a stored selection (nullopt: every design).
    void setDesignIds(std::optional<QSet<qint64>> ids) {
        ids_ = std::move(ids);
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        const QAbstractItemModel* m = sourceModel();
        const QString flag = m->index(row, 0, parent).data(DesignTableModel::FlagRole).toString();
        if (flag_ == DesignsView::FlagFilter::Starred && flag != QLatin1String("starred")) return false;
        if (flag_ == DesignsView::FlagFilter::HideDiscarded && flag == QLatin1String("discarded")) return false;
        auto value = [&](int column) { return m->index(row, column, parent).data(DesignTableModel::SortRole); };
        if (run_ && value(DesignTableModel::RunColumn).toLongLong() != run_) return false;
        if (ids_ && !ids_->contains(static_cast<const DesignTableModel*>(m)->row(row).designId)) return false;
        for (const FilterTerm& t : terms_) {
            if (t.column < 0) {
                if (!value(DesignTableModel::BasesColumn).toString().contains(t.text, Qt::CaseInsensitive)) return false;
            } else if (t.column == DesignTableModel::ConstraintsColumn) {
                if (value(t.column).toString().compare(t.text, Qt::CaseInsensitive) != 0) return false;
            } else {
                const double v = value(t.column).toDouble();
                if (v <= -1e299) return false;  // no value: not predicted, not scored
                const bool ok = t.op == QLatin1String("<")    ? v < t.value
                                : t.op == QLatin1String("<=") ? v <= t.value
                                : t.op == QLatin1String(">")  ? v > t.value
                                : t.op == QLatin1String(">=") ? v >= t.value
                                                              : std::abs(v - t.value) < 1e-9;
                if (!ok) return false;
            }
        }
        return true;
    }

private:
    QList<FilterTerm> terms_;
    DesignsView::FlagFilter flag_ = DesignsView::FlagFilter::All;
    qint64 run_ = 0;
    std::optional<QSet<qint64>> ids_;
};

}  // namespace

DesignsView::DesignsView(DesignTableModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* top = new QHBoxLayout;
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText(tr("Filter: bases (TATA) and/or gc>40 min>-2 score>=-1.3 len=80 run=2 constraints=met"));
    filter_->setToolTip(tr("Space-separated terms, all of which must hold: FIELD OP NUMBER with fields score, ranking, "
                           "min (lowest per-base log p), gc (%), len, rank, run, spec (specificity of guided designs), objective, "
                           "each predicted output by name (k562>1.5) and ops < <= = >= >; constraints=met or "
                           "none; any other text must occur in the bases"));
    filter_->setAccessibleName(tr("Filter designs"));
    filter_->setClearButtonEnabled(true);
    flagFilter_ = new QComboBox(this);
    flagFilter_->addItems({tr("All designs"), tr("Starred only"), tr("Hide discarded")});
    flagFilter_->setAccessibleName(tr("Show designs by verdict"));
    auto button = [this, top](const QString& text, const QString& accessible, const QString& tip) {
        auto* b = new QPushButton(text, this);
        b->setAccessibleName(accessible);
        b->setToolTip(tip);
        top->addWidget(b);
        return b;
    };
    synthesis_ = new SynthesisRulesCombo(tr("No synthesis check"), this);
    synthesis_->setAccessibleName(tr("Check the designs against a vendor's synthesis rules"));
    synthesis_->setToolTip(tr("A vendor's synthesis rules (carbon-cli check --list-rules shows them and their sources): the "
                              "Synthesis column says which rules each design breaks"));
    synthesis_->setMinimumContentsLength(10);
    selection_ = new QComboBox(this);
    selection_->setAccessibleName(tr("Show a stored selection of designs"));
    selection_->setToolTip(tr("A selection stored in the project (Choose Diverse…, carbon-cli select --save-as): the table shows "
                              "its designs, selected, so that Order Selected Designs orders them"));
    selection_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    selection_->setMinimumContentsLength(10);
    chooseDiverse_ = new QPushButton(tr("Choose Diverse…"), this);
    chooseDiverse_->setAccessibleName(tr("Choose diverse designs"));
    chooseDiverse_->setToolTip(tr("Remove near-duplicates and choose designs that are good and far apart, among the stored designs "
                                  "shown; the choice is stored in the project as a selection"));
    top->addWidget(filter_, 1);
    QPushButton* star = button(tr("Star"), tr("Star the selected designs"), tr("Star or unstar the selected designs (S)"));
    QPushButton* discard = button(tr("Discard"), tr("Discard the selected designs"), tr("Discard or restore the selected designs (D)"));
    QPushButton* overlay = button(tr("Overlay tracks"), tr("Overlay the selected designs' tracks"),
                                  tr("Show the per-base log p of the selected designs together in the track view"));
    QPushButton* exportButton = button(tr("Export…"), tr("Export the selected designs"), tr("Export the selected designs (Ctrl+E)"));
    layout->addLayout(top);
    // The verdict filter and the synthesis check on a row of their own: beside the buttons they
    // would leave the filter a few letters wide in a dock a third of a laptop screen wide.
    auto* second = new QHBoxLayout;
    second->addWidget(flagFilter_);
    second->addWidget(synthesis_);
    second->addWidget(selection_);
    second->addWidget(chooseDiverse_);
    second->addStretch(1);
    layout->addLayout(second);
    runFilterLabel_ = new QLabel(this);
    runFilterLabel_->setVisible(false);
    layout->addWidget(runFilterLabel_);
    connect(runFilterLabel_, &QLabel::linkActivated, this, [this] { setRunFilter(0); });

    auto* proxy = new DesignFilterProxy(this);
    proxy_ = proxy;
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(DesignTableModel::SortRole);
    table_ = new QTableView(this);
    table_->setAccessibleName(tr("Designs"));
    table_->setModel(proxy_);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &DesignsView::selectionChanged);
    table_->setSortingEnabled(true);
    table_->sortByColumn(DesignTableModel::RankColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table_);

    // S / D act on the table's selection when the table has focus.
    auto* starAction = new QAction(tr("Star"), table_);
    starAction->setShortcut(QKeySequence(Qt::Key_S));
    starAction->setShortcutContext(Qt::WidgetShortcut);
    table_->addAction(starAction);
    auto* discardAction = new QAction(tr("Discard"), table_);
    discardAction->setShortcut(QKeySequence(Qt::Key_D));
    discardAction->setShortcutContext(Qt::WidgetShortcut);
    table_->addAction(discardAction);

    connect(filter_, &QLineEdit::textChanged, this, [this, proxy](const QString& t) {
        QString error;
        proxy->setTerms(parseFilter(t, *model_, &error));
        filter_->setStyleSheet(error.isEmpty() ? QString() : QStringLiteral("color: #b00020"));
        filter_->setToolTip(error.isEmpty() ? filter_->toolTip().section(QLatin1Char('\n'), 0, 0)
                                            : filter_->toolTip().section(QLatin1Char('\n'), 0, 0) + QLatin1Char('\n') + error);
    });
    // The predicted outputs are columns that come and go with the rows: a term on one is read again.
    auto reapply = [this] { emit filter_->textChanged(filter_->text()); };
    connect(model_, &QAbstractItemModel::modelReset, this, reapply);
    connect(model_, &QAbstractItemModel::columnsInserted, this, reapply);
    connect(flagFilter_, &QComboBox::currentIndexChanged, this, [this](int i) { setFlagFilter(FlagFilter(i)); });
    connect(synthesis_, &SynthesisRulesCombo::rulesChosen, this, [this](const QString& id) {
        if (const QString error = setSynthesisRules(id); !error.isEmpty()) emit synthesisRulesFailed(error);
    });
    connect(synthesis_, &SynthesisRulesCombo::rulesFileRequested, this, &DesignsView::rulesFileRequested);
    connect(selection_, &QComboBox::currentIndexChanged, this, [this](int i) { showSelection(selection_->itemData(i).toString()); });
    connect(chooseDiverse_, &QPushButton::clicked, this, &DesignsView::chooseDiverseRequested);
    setSelections({});
    connect(star, &QPushButton::clicked, this, &DesignsView::starSelection);
    connect(discard, &QPushButton::clicked, this, &DesignsView::discardSelection);
    connect(starAction, &QAction::triggered, this, &DesignsView::starSelection);
    connect(discardAction, &QAction::triggered, this, &DesignsView::discardSelection);
    connect(overlay, &QPushButton::clicked, this, &DesignsView::overlaySelection);
    connect(exportButton, &QPushButton::clicked, this, &DesignsView::exportSelection);
    connect(table_, &QTableView::activated, this,
            [this](const QModelIndex& index) { emit openDesign(proxy_->mapToSource(index).row()); });
}

void DesignsView::setFlagFilter(FlagFilter f) {
    if (flagFilter_->currentIndex() != int(f)) flagFilter_->setCurrentIndex(int(f));
    static_cast<DesignFilterProxy*>(proxy_)->setFlagFilter(f);
}

QString DesignsView::setSynthesisRules(const QString& id) {
    if (synthesis_->chosenId() != id) {
        const QString error = synthesis_->choose(id);  // comes back here through rulesChosen
        if (!error.isEmpty()) synthesis_->choose({});
        return error;
    }
    QString error;
    model_->setSynthesisRules(synthesis_->chosen(&error));
    return error;
}

QString DesignsView::addRulesFile(const QString& path) { return synthesis_->addRulesFile(path); }

void DesignsView::setSelections(const SelectionList& selections) {
    const QString was = selection_->currentData().toString();
    selections_ = selections;
    const QSignalBlocker quiet(selection_);
    selection_->clear();
    selection_->addItem(tr("All designs"), QString());
    for (const carbon::storage::SelectionRecord& s : selections) {
        selection_->addItem(tr("%1 (%2)").arg(QString::fromStdString(s.name)).arg(s.design_ids.size()), QString::fromStdString(s.name));
        selection_->setItemData(selection_->count() - 1, tr("Stored %1: %2").arg(QString::fromStdString(s.created), QString::fromStdString(s.settings)),
                                Qt::ToolTipRole);
    }
    const int i = selection_->findData(was);
    selection_->setCurrentIndex(std::max(0, i));
    if (i < 0 && !was.isEmpty()) showSelection({});  // the selection shown is gone
    else if (i > 0) showSelection(was);               // its designs may have changed
}

void DesignsView::showSelection(const QString& name) {
    const int i = selection_->findData(name);
    if (selection_->currentIndex() != std::max(0, i)) {
        selection_->setCurrentIndex(std::max(0, i));  // comes back here through the signal
        return;
    }
    auto* proxy = static_cast<DesignFilterProxy*>(proxy_);
    if (name.isEmpty() || i < 0) {
        proxy->setDesignIds(std::nullopt);
        return;
    }
    QList<qint64> ids;
    for (const carbon::storage::SelectionRecord& s : selections_)
        if (QString::fromStdString(s.name) == name) ids = QList<qint64>(s.design_ids.begin(), s.design_ids.end());
    // Every design of it shown: the verdict, run and text filters let go.
    setFlagFilter(FlagFilter::All);
    setRunFilter(0);
    filter_->clear();
    proxy->setDesignIds(QSet<qint64>(ids.begin(), ids.end()));
    // Its designs selected, in the selection's order (Order Selected Designs takes them so).
    QHash<qint64, int> rowOf;
    for (int r = 0; r < model_->rowCount(); ++r) rowOf.insert(model_->row(r).designId, r);
    QList<int> rows;
    for (qint64 id : ids)
        if (rowOf.contains(id)) rows << rowOf.value(id);
    selectSourceRows(rows);
}

QString DesignsView::shownSelection() const { return selection_->currentData().toString(); }

QList<qint64> DesignsView::selectedDesignIds() const {
    QList<qint64> ids;
    for (int r : selectedSourceRows())
        if (model_->row(r).designId) ids << model_->row(r).designId;
    // The shown selection, wholly selected: in its own order (the order it was chosen in).
    for (const carbon::storage::SelectionRecord& s : selections_)
        if (QString::fromStdString(s.name) == shownSelection()) {
            const QList<qint64> own(s.design_ids.begin(), s.design_ids.end());
            if (QSet<qint64>(own.begin(), own.end()) == QSet<qint64>(ids.begin(), ids.end())) return own;
        }
    return ids;
}

QList<int> DesignsView::shownSourceRows() const {
    QList<int> rows;
    for (int r = 0; r < proxy_->rowCount(); ++r) rows << proxy_->mapToSource(proxy_->index(r, 0)).row();
    return rows;
}

void DesignsView::setRunFilter(qint64 run) {
    static_cast<DesignFilterProxy*>(proxy_)->setRun(run);
    runFilterLabel_->setVisible(run != 0);
    runFilterLabel_->setText(tr("Showing the designs of run %1. <a href=\"all\">Show every run</a>").arg(run));
}

QList<int> DesignsView::selectedSourceRows() const {
    QList<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows << proxy_->mapToSource(i).row();
    return rows;
}

void DesignsView::selectSourceRows(const QList<int>& rows) {
    QItemSelection selection;
    QModelIndex first;
    for (int r : rows) {
        const QModelIndex i = proxy_->mapFromSource(model_->index(r, 0));
        if (!i.isValid()) continue;
        selection.select(i, i);
        if (!first.isValid()) first = i;
    }
    table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (first.isValid()) table_->scrollTo(first);
}

void DesignsView::flagSelection(const QString& flag) {
    const QList<int> rows = selectedSourceRows();
    // Toggle: when every selected design already has the flag, clear it instead.
    bool all = !rows.isEmpty();
    for (int r : rows) all = all && model_->row(r).flag == flag;
    for (int r : rows) model_->setFlag(r, all ? QString() : flag);
}

void DesignsView::starSelection() { flagSelection(QStringLiteral("starred")); }
void DesignsView::discardSelection() { flagSelection(QStringLiteral("discarded")); }

}  // namespace carbon::ui
