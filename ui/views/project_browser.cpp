// ProjectBrowser: a QTreeWidget with two branches; items keep the stored id in Qt::UserRole.
#include "project_browser.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace carbon::ui {

namespace st = carbon::storage;

namespace {
constexpr int kIdRole = Qt::UserRole;
constexpr int kKindRole = Qt::UserRole + 1;  // 1 = sequence, 2 = run, 3 = variant, 4 = vep run
constexpr int kPositionRole = Qt::UserRole + 2;
constexpr int kAltRole = Qt::UserRole + 3;
enum { kSequence = 1, kRun = 2, kVariant = 3, kVepRun = 4 };

QString when(const QString& iso) {
    const QDateTime t = QDateTime::fromString(iso, Qt::ISODate);
    return t.isValid() ? QLocale().toString(t.toLocalTime(), QLocale::ShortFormat) : iso;
}
}  // namespace

ProjectBrowser::ProjectBrowser(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    header_ = new QLabel(this);
    header_->setTextFormat(Qt::PlainText);  // a file name is text
    header_->setWordWrap(true);
    header_->setAccessibleName(tr("Project"));
    layout->addWidget(header_);
    tree_ = new QTreeWidget(this);
    tree_->setAccessibleName(tr("Project contents"));
    tree_->setColumnCount(2);
    tree_->setHeaderLabels({tr("Name"), tr("Details")});
    tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree_->setUniformRowHeights(true);
    layout->addWidget(tree_);
    connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const qint64 id = item->data(0, kIdRole).toLongLong();
        switch (item->data(0, kKindRole).toInt()) {
            case kSequence: emit openSequence(id); break;
            case kRun: emit showRun(id); break;
            case kVepRun: emit openVepRun(id); break;
            case kVariant:
                emit openVariant(item->parent()->data(0, kIdRole).toLongLong(), item->data(0, kPositionRole).toLongLong(),
                                 char(item->data(0, kAltRole).toInt()));
                break;
            default:
                if (item == runs_) emit showRun(0);
                break;
        }
    });
    showNoProject();
}

void ProjectBrowser::showNoProject() {
    tree_->clear();
    sequences_ = runs_ = nullptr;
    header_->setText(tr("No project open. File > New Project or Open Project; designs made without a project are not saved."));
    tree_->setEnabled(false);
}

void ProjectBrowser::showProject(const ProjectSnapshot& snap) {
    tree_->setUpdatesEnabled(false);
    tree_->clear();
    tree_->setEnabled(true);
    projectName_ = QFileInfo(snap.path).fileName();
    header_->setToolTip(snap.path);
    sequences_ = new QTreeWidgetItem(tree_, {tr("Sequences")});
    runs_ = new QTreeWidgetItem(tree_, {tr("Runs")});
    runs_->setToolTip(0, tr("Activate to show the designs of every run"));
    for (const st::SequenceRecord& s : snap.sequences) sequences_->addChild(sequenceItem(s));
    for (const st::Run& r : snap.runs) runs_->addChild(runItem(r, snap.designsPerRun.value(r.id)));
    QHash<qint64, QList<st::VariantRecord>> bySequence;
    for (const st::VariantRecord& v : snap.importedVariants) bySequence[v.sequence_id].append(v);
    for (auto it = bySequence.cbegin(); it != bySequence.cend(); ++it) setVariants(it.key(), it.value());
    sequences_->setExpanded(true);
    runs_->setExpanded(true);
    updateCounts();
    setVariantCount(snap.variants);
    tree_->setUpdatesEnabled(true);
}

void ProjectBrowser::setVariantCount(qint64 variants) {
    header_->setText(variants ? projectName_ + tr("  (%n variant(s))", nullptr, int(variants)) : projectName_);
}

QTreeWidgetItem* ProjectBrowser::sequenceItem(const st::SequenceRecord& s) {
    const QString name = QString::fromStdString(s.name), description = QString::fromStdString(s.description);
    auto* item = new QTreeWidgetItem({name, tr("%1 bp").arg(QLocale().toString(qint64(s.length)))});
    item->setData(0, kIdRole, qint64(s.id));
    item->setData(0, kKindRole, kSequence);
    QString tip = description.isEmpty() ? name : name + QStringLiteral(" — ") + description;
    if (!s.origin.empty()) tip += tr("\nFrom: %1").arg(QString::fromStdString(s.origin));
    item->setToolTip(0, tip);
    QFont f = item->font(0);
    f.setBold(s.id == current_);
    item->setFont(0, f);
    return item;
}

QTreeWidgetItem* ProjectBrowser::runItem(const st::Run& r, int designs) {
    auto setting = [&r](const char* key) { return QString::fromStdString(r.setting(key).value_or("")); };
    const QString kind = QString::fromStdString(r.kind), status = QString::fromStdString(r.status),
                  model = QString::fromStdString(r.model_path), backend = QString::fromStdString(r.backend),
                  started = QString::fromStdString(r.started);
    const bool vep = r.kind == "vep";
    QString detail = vep ? tr("variant effects of %1, %2").arg(QFileInfo(setting("vcf")).fileName(), when(started))
                         : tr("%1, %n design(s), %2", nullptr, designs).arg(kind, when(started));
    if (r.status != "finished") detail += QStringLiteral(" (%1)").arg(status);
    auto* item = new QTreeWidgetItem({tr("Run %1").arg(r.id), detail});
    item->setData(0, kIdRole, qint64(r.id));
    item->setData(0, kKindRole, vep ? kVepRun : kRun);
    QString tip = tr("Model: %1\nBackend: %2\nSeed: %3").arg(model, backend).arg(r.seed);
    if (vep)
        tip = tr("Variant effects of %1 against %2\nWindow %3 bp%4\nModel: %5\nBackend: %6\nOpen it to see the variants.")
                  .arg(setting("vcf"), setting("reference"), setting("window_bp"),
                       setting("reverse_complement") == QLatin1String("1") ? tr(", both strands") : QString(), model, backend);
    if (r.bases_per_second > 0) tip += tr("\n%1 bp/s").arg(r.bases_per_second, 0, 'f', 1);
    const QString acc = setting("spec_acceptance_rate");
    if (!acc.isEmpty())
        tip += tr("\nSpeculative: %1% accepted, %2 tokens per target pass, speed-up %3x")
                   .arg(100.0 * acc.toDouble(), 0, 'f', 1)
                   .arg(setting("spec_tokens_per_target_pass").toDouble(), 0, 'f', 2)
                   .arg(setting("spec_speedup").toDouble(), 0, 'f', 2);
    item->setToolTip(0, tip);
    item->setToolTip(1, tip);
    return item;
}

void ProjectBrowser::addSequences(const QList<st::SequenceRecord>& sequences) {
    if (!sequences_) return;
    for (const st::SequenceRecord& s : sequences) sequences_->addChild(sequenceItem(s));
    updateCounts();
}

void ProjectBrowser::addRun(const st::Run& run, int designs) {
    if (!runs_) return;
    runs_->addChild(runItem(run, designs));
    updateCounts();
}

void ProjectBrowser::setCurrentSequence(qint64 id) {
    current_ = id;
    if (!sequences_) return;
    for (int i = 0; i < sequences_->childCount(); ++i) {
        QTreeWidgetItem* item = sequences_->child(i);
        QFont f = item->font(0);
        f.setBold(item->data(0, kIdRole).toLongLong() == id);
        item->setFont(0, f);
    }
}

void ProjectBrowser::updateSequenceLength(qint64 id, qint64 length) {
    if (QTreeWidgetItem* item = findSequence(id)) item->setText(1, tr("%1 bp").arg(QLocale().toString(length)));
}

QTreeWidgetItem* ProjectBrowser::findSequence(qint64 id) const {
    if (!sequences_) return nullptr;
    for (int i = 0; i < sequences_->childCount(); ++i)
        if (sequences_->child(i)->data(0, kIdRole).toLongLong() == id) return sequences_->child(i);
    return nullptr;
}

void ProjectBrowser::setVariants(qint64 sequenceId, const QList<st::VariantRecord>& variants) {
    QTreeWidgetItem* seq = findSequence(sequenceId);
    if (!seq) return;
    qDeleteAll(seq->takeChildren());
    for (const st::VariantRecord& v : variants) {
        const QString text = tr("%1>%2 at %3").arg(QChar::fromLatin1(v.ref)).arg(QChar::fromLatin1(v.alt)).arg(QLocale().toString(qint64(v.position + 1)));
        auto* item = new QTreeWidgetItem({text, QString::fromStdString(v.label)});
        item->setData(0, kIdRole, qint64(v.id));
        item->setData(0, kKindRole, kVariant);
        item->setData(0, kPositionRole, qint64(v.position));
        item->setData(0, kAltRole, int(v.alt));
        item->setToolTip(0, tr("Activate to open the sequence at this base and compare the variant in the Base Inspector"));
        seq->addChild(item);
    }
}

void ProjectBrowser::updateCounts() {
    if (sequences_) sequences_->setText(1, QString::number(sequences_->childCount()));
    if (runs_) runs_->setText(1, QString::number(runs_->childCount()));
}

}  // namespace carbon::ui
