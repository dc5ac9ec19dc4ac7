// ModelPanel: added folders live in QSettings under models/recent (most recent first, 12 kept);
// inspection runs on QThreadPool and comes back through a queued call guarded by QPointer.
#include "model_panel.h"

#include "carbon/gpu_provider.h"

#include <QApplication>
#include <algorithm>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMutex>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QThreadPool>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace carbon::ui {

namespace {
constexpr int kMaxRecent = 12;
const char* kRecentKey = "models/recent";
const char* kBackendKey = "models/backend";  // auto | cpu | cuda
const char* kWeightsKey = "models/weights";  // folder -> native | int8
constexpr int kDirRole = Qt::UserRole;

QString mib(double bytes) {
    return bytes >= 1024.0 * 1024 * 1024 ? QLocale().toString(bytes / (1024.0 * 1024 * 1024), 'f', 2) + QStringLiteral(" GiB")
                                          : QLocale().toString(bytes / (1024.0 * 1024), 'f', 1) + QStringLiteral(" MiB");
}

// Inspecting a folder parses its tokenizer (a second or so for a real one) and every tensor
// header; the result is kept per folder and reused until its config.json, safetensors or
// tokenizer files change, so a rescan (at start-up, after loading a model) costs next to nothing
// and never competes with the engine for the CPU.
ModelFolderInfo inspectCached(const QString& dir) {
    static QMutex mutex;
    static QHash<QString, QPair<QString, ModelFolderInfo>> cache;
    QString stamp;
    const QDir d(dir);
    for (const QFileInfo& f : d.entryInfoList(QDir::Files, QDir::Name))
        stamp += f.fileName() + QLatin1Char(':') + QString::number(f.size()) + QLatin1Char(':') +
                 QString::number(f.lastModified().toMSecsSinceEpoch()) + QLatin1Char(';');
    {
        QMutexLocker lock(&mutex);
        auto it = cache.constFind(dir);
        if (it != cache.constEnd() && it->first == stamp) return it->second;
    }
    ModelFolderInfo info = inspect_model_folder(dir.toStdString());
    QMutexLocker lock(&mutex);
    cache.insert(dir, {stamp, info});
    return info;
}

QString displayName(const ModelFolderInfo& m) {
    QString name = QString::fromStdString(m.name);
    if (!m.revision.empty()) name += QStringLiteral(" @") + QString::fromStdString(m.revision).left(8);
    return name;
}
}  // namespace

namespace {
// "CPU (no CUDA backend in this build)" or "GPU: NAME (CUDA) when it passes its self-check, else the CPU".
QString runsOn() {
    const std::string gpu = carbon::gpu_status();
    if (gpu.rfind("GPU: ", 0) == 0)
        return QObject::tr("%1 when it fits and passes its self-check, else the CPU").arg(QString::fromStdString(gpu));
    return QObject::tr("CPU (%1)").arg(QString::fromStdString(gpu));
}
}  // namespace

QString describeModelFolder(const ModelFolderInfo& m) {
    if (!m.ok) return QObject::tr("Does not load: %1").arg(QString::fromStdString(m.error));
    const ModelConfig& c = m.config;
    const uint64_t ctx = uint64_t(c.max_position_embeddings);
    return QObject::tr(
               "%1 M parameters, %2 layers, hidden %3, %16 attention heads (%17 KV)\n"
               "Context %4 tokens (%5 bp), %6 weights, %7 on disk\n"
               "Memory on the CPU: %8 (weights %9 + KV cache %10 for one full-context sequence)\n"
               "Tokenizer: <dna> %11, </dna> %12, <oov> %13, 6-mers %14..%15 (%18)\n"
               "Runs on: %19")
        .arg(QLocale().toString(double(m.parameters) / 1e6, 'f', 1))
        .arg(c.num_hidden_layers)
        .arg(c.hidden_size)
        .arg(QLocale().toString(c.max_position_embeddings))
        .arg(QLocale().toString(qint64(c.max_position_embeddings) * 6))
        .arg(QString::fromLatin1(dtype_name(m.weights_dtype)))
        .arg(mib(double(m.disk_bytes)))
        .arg(mib(double(m.memory_needed(ctx))))
        .arg(mib(double(m.weight_bytes)))
        .arg(mib(double(m.kv_bytes_per_token * ctx)))
        .arg(m.dna_open)
        .arg(m.dna_close)
        .arg(m.oov)
        .arg(m.first_kmer)
        .arg(m.last_kmer)
        .arg(c.num_attention_heads)
        .arg(c.num_key_value_heads)
        .arg(QString::fromStdString(m.kmer_ids_from))  // free text: only %19 is substituted after it
        .arg(runsOn());
}

namespace {
// What the manager says when it knows no model folder: what a model folder holds and how to get
// one (plain text: nothing here opens a browser or downloads).
QString howToGetWeights(const QString& hubDir) {
    return QObject::tr(
               "No model folder yet.\n\n"
               "A Carbon model is a folder in the Hugging Face layout: config.json, the weights as "
               "model.safetensors (or shards model-0000N-of-0000M.safetensors with model.safetensors.index.json) "
               "and the tokenizer files (tokenizer.json, tokenizer_config.json, special_tokens_map.json).\n\n"
               "To get one, run on a machine with internet access:\n"
               "    hf download HuggingFaceBio/Carbon-3B\n"
               "(or Carbon-500M, the draft model, or Carbon-8B). That puts it in the Hugging Face cache (%1), "
               "whose models this list shows by themselves. With "
               "--local-dir ~/models/Carbon-3B it goes into a folder of its own instead: press Add folder and "
               "choose it, or a copy of such a folder from a colleague.\n\n"
               "Carbon Studio never downloads anything. Projects open, edit and export without a model.")
        .arg(hubDir.isEmpty() ? QObject::tr("(no cache: HOME is not set)") : hubDir);
}
}  // namespace

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    list_ = new QTreeWidget(this);
    list_->setAccessibleName(tr("Model folders"));
    list_->setHeaderLabels({tr("Model"), tr("Parameters"), tr("Context"), tr("Memory"), tr("Status")});
    list_->setRootIsDecorated(false);
    list_->setUniformRowHeights(true);
    list_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    list_->setMinimumHeight(110);
    layout->addWidget(list_);
    empty_ = new QLabel(this);  // filled when a scan finds nothing
    empty_->setWordWrap(true);
    empty_->setTextFormat(Qt::PlainText);
    empty_->setVisible(false);
    empty_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    empty_->setAccessibleName(tr("How to get Carbon weights"));
    layout->addWidget(empty_);
    selected_ = new QLabel(this);
    selected_->setWordWrap(true);
    selected_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    selected_->setAccessibleName(tr("Selected model folder"));
    layout->addWidget(selected_);

    auto button = [this](const QString& text, const QString& name) {
        auto* b = new QPushButton(text, this);
        b->setAccessibleName(name);
        return b;
    };
    add_ = button(tr("&Add folder…"), tr("Add a model folder"));
    addFile_ = button(tr("Add &GGUF file…"), tr("Add a GGUF model file"));
    addFile_->setToolTip(tr("A Carbon GGUF file (llama.cpp's, bf16 or Q8_0): choose the file when a folder holds several"));
    rescan_ = button(tr("Rescan"), tr("Rescan the model folders and the Hugging Face cache"));
    load_ = button(tr("Load as &target"), tr("Load the selected folder as the target model"));
    draft_ = button(tr("Use as &draft"), tr("Pair the selected folder as the draft model"));
    clearDraft_ = button(tr("No draft"), tr("Generate without a draft model"));
    auto* row1 = new QHBoxLayout;
    row1->addWidget(add_);
    row1->addWidget(addFile_);
    row1->addWidget(rescan_);
    layout->addLayout(row1);
    auto* row2 = new QHBoxLayout;
    row2->addWidget(load_);
    row2->addWidget(draft_);
    row2->addWidget(clearDraft_);
    layout->addLayout(row2);

    // Where models run: the choice applies to the next load (and reloads the loaded model).
    auto* row3 = new QHBoxLayout;
    auto* runOnLabel = new QLabel(tr("Run on:"), this);
    backend_ = new QComboBox(this);
    backend_->addItem(tr("Automatic (GPU when usable)"), QStringLiteral("auto"));
    backend_->addItem(tr("CPU"), QStringLiteral("cpu"));
    backend_->addItem(tr("GPU (CUDA)"), QStringLiteral("cuda"));
    backend_->setAccessibleName(tr("Where models run"));
    runOnLabel->setBuddy(backend_);
    const int saved = backend_->findData(QSettings().value(QLatin1String(kBackendKey), QStringLiteral("auto")).toString());
    backend_->setCurrentIndex(saved < 0 ? 0 : saved);
    gpu_ = new QLabel(QString::fromStdString(carbon::gpu_status()), this);
    gpu_->setWordWrap(true);
    gpu_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    gpu_->setAccessibleName(tr("GPU status"));
    row3->addWidget(runOnLabel);
    row3->addWidget(backend_, 1);
    layout->addLayout(row3);
    // The weights, per folder: as stored, or 8-bit (half the bytes a token reads; int8 runs on the CPU
    // and the GPU, Q8_0 on the CPU).
    auto* row4 = new QHBoxLayout;
    auto* weightsLabel = new QLabel(tr("Weights:"), this);
    weights_ = new QComboBox(this);
    weights_->addItem(tr("As stored (bf16)"), QStringLiteral("native"));
    weights_->addItem(tr("8-bit, fastest (int8)"), QStringLiteral("int8"));
    weights_->addItem(tr("8-bit, finest (Q8_0, on the CPU)"), QStringLiteral("q8_0"));
    weights_->setAccessibleName(tr("Weights the selected model is loaded with"));
    weights_->setToolTip(tr("8-bit weights are quantised when the model loads: about half the memory and the bytes read per token "
                            "of bf16, the scores close to but not equal to the stored weights'. Fastest: one scale per row, reading "
                            "faster than bf16, on the CPU or the GPU. Finest: a scale per 32 values (GGUF Q8_0), closer to the stored "
                            "weights' scores, reading slower, on the CPU only. Remembered for each model folder; the loaded model's description says which it runs."));
    weightsLabel->setBuddy(weights_);
    row4->addWidget(weightsLabel);
    row4->addWidget(weights_, 1);
    layout->addLayout(row4);
    connect(weights_, &QComboBox::activated, this, [this] {
        const QString dir = selectedDir();
        if (dir.isEmpty()) return;
        QVariantMap all = QSettings().value(QLatin1String(kWeightsKey)).toMap();
        all.insert(dir, weights_->currentData().toString());
        QSettings().setValue(QLatin1String(kWeightsKey), all);
        emit weightsChanged(dir, weights_->currentData().toString());
    });
    layout->addWidget(gpu_);
    connect(backend_, &QComboBox::currentIndexChanged, this, [this] {
        QSettings().setValue(QLatin1String(kBackendKey), backendChoice());
        emit backendChanged(backendChoice());
    });

    status_ = new QLabel(tr("No model loaded."), this);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setAccessibleName(tr("Model status"));
    layout->addWidget(status_);
    details_ = new QFormLayout;
    details_->setLabelAlignment(Qt::AlignRight);
    layout->addLayout(details_);
    draftStatus_ = new QLabel(tr("Draft: none (speculative decoding off)."), this);
    draftStatus_->setWordWrap(true);
    draftStatus_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    draftStatus_->setAccessibleName(tr("Draft model status"));
    layout->addWidget(draftStatus_);
    layout->addStretch(1);

    connect(add_, &QPushButton::clicked, this, &ModelPanel::chooseFolder);
    connect(addFile_, &QPushButton::clicked, this, &ModelPanel::chooseFile);
    connect(rescan_, &QPushButton::clicked, this, &ModelPanel::rescan);
    connect(load_, &QPushButton::clicked, this, [this] {
        if (const QString d = selectedDir(); !d.isEmpty()) emit loadRequested(d);
    });
    connect(draft_, &QPushButton::clicked, this, [this] {
        if (const QString d = selectedDir(); !d.isEmpty()) emit draftRequested(d);
    });
    connect(clearDraft_, &QPushButton::clicked, this, &ModelPanel::clearDraftRequested);
    connect(list_, &QTreeWidget::currentItemChanged, this, &ModelPanel::showSelected);
    connect(list_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        emit loadRequested(item->data(0, kDirRole).toString());
    });
    clearDraft_->setEnabled(false);
    showSelected();
    rescan();
}

QString ModelPanel::backendChoice() const { return backend_->currentData().toString(); }

QString ModelPanel::weightsFor(const QString& dir) {
    const QString w = QSettings().value(QLatin1String(kWeightsKey)).toMap().value(dir).toString();
    return w == QLatin1String("int8") || w == QLatin1String("q8_0") ? w : QStringLiteral("native");
}

QStringList ModelPanel::recentFolders() const { return QSettings().value(kRecentKey).toStringList(); }

void ModelPanel::chooseFolder() {
    const QStringList recent = recentFolders();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Choose a model folder (config.json, safetensors, tokenizer)"),
                                                          recent.isEmpty() ? QDir::homePath() : QFileInfo(recent.first()).absolutePath());
    if (dir.isEmpty()) return;
    addFolder(dir);
    emit loadRequested(dir);
}

void ModelPanel::chooseFile() {
    const QStringList recent = recentFolders();
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Choose a Carbon GGUF model file (bf16 or Q8_0)"),
        recent.isEmpty() ? QDir::homePath() : QFileInfo(recent.first()).absolutePath(),
        tr("GGUF model files (*.gguf);;All files (*)"));
    if (file.isEmpty()) return;
    addFolder(file);
    emit loadRequested(file);
}

void ModelPanel::addFolder(const QString& dir) {
    rememberFolder(dir);
    rescan();
}

void ModelPanel::rescan() {
    if (scanning_) {  // one scan at a time; the newest request runs after it
        rescanAgain_ = true;
        return;
    }
    scanning_ = true;
    rescan_->setEnabled(false);
    const QStringList folders = recentFolders();
    const std::filesystem::path hub = default_hf_hub_dir();  // the environment, read on the GUI thread
    hubDir_ = QString::fromStdString(hub.string());
    QPointer<ModelPanel> self(this);
    QThreadPool::globalInstance()->start([self, folders, hub] {
        QList<ModelFolderInfo> infos;
        for (const QString& f : folders) infos.append(inspectCached(f));
        // The cache's snapshots: found by name (cheap), described through the same cache.
        for (const ModelFolderInfo& m : find_hf_snapshots(hub, false)) {
            const QString dir = QString::fromStdString(m.dir.string());
            if (folders.contains(dir)) continue;
            ModelFolderInfo info = inspectCached(dir);
            info.name = m.name;
            info.revision = m.revision;
            info.current = m.current;
            infos.append(std::move(info));
        }
        QMetaObject::invokeMethod(qApp, [self, infos] {
            if (self) self->setInfos(infos);
        }, Qt::QueuedConnection);
    });
}

void ModelPanel::setInfos(const QList<ModelFolderInfo>& infos) {
    const QString keep = selectedDir();
    infos_ = infos;
    list_->clear();
    for (const ModelFolderInfo& m : infos_) {
        const QString dir = QString::fromStdString(m.dir.string());
        QStringList cols = {displayName(m)};
        if (m.ok) {
            cols << tr("%1 M").arg(QLocale().toString(double(m.parameters) / 1e6, 'f', 1))
                 << tr("%1 bp").arg(QLocale().toString(qint64(m.config.max_position_embeddings) * 6))
                 << mib(double(m.memory_needed(uint64_t(m.config.max_position_embeddings)))) << tr("ready");
        } else {
            cols << QString() << QString() << QString() << tr("does not load");
        }
        auto* item = new QTreeWidgetItem(list_, cols);
        item->setData(0, kDirRole, dir);
        item->setToolTip(0, dir);
        item->setToolTip(4, m.ok ? tr("Described from its files; not loaded yet") : QString::fromStdString(m.error));
        if (!m.ok) item->setForeground(4, QColor(0xb0, 0x00, 0x20));
        if (dir == keep) list_->setCurrentItem(item);
    }
    if (!list_->currentItem() && list_->topLevelItemCount() > 0) list_->setCurrentItem(list_->topLevelItem(0));
    const bool none = infos_.isEmpty();
    if (none) empty_->setText(howToGetWeights(hubDir_));
    empty_->setVisible(none);
    list_->setVisible(!none);
    scanning_ = false;
    rescan_->setEnabled(true);
    showSelected();
    emit scanned();
    if (std::exchange(rescanAgain_, false)) rescan();
}

QString ModelPanel::selectedDir() const {
    const QTreeWidgetItem* item = list_->currentItem();
    return item ? item->data(0, kDirRole).toString() : QString();
}

void ModelPanel::showSelected() {
    const QString dir = selectedDir();
    const ModelFolderInfo* info = nullptr;
    for (const ModelFolderInfo& m : infos_)
        if (QString::fromStdString(m.dir.string()) == dir) info = &m;
    load_->setEnabled(info && info->ok);
    draft_->setEnabled(info && info->ok);
    weights_->setEnabled(!dir.isEmpty());
    weights_->setCurrentIndex(std::max(0, weights_->findData(weightsFor(dir))));
    selected_->setVisible(info != nullptr);
    if (info) selected_->setText(QStringLiteral("%1\n%2").arg(dir, describeModelFolder(*info)));
}

void ModelPanel::setLoading(const QString& dir) {
    clearDetails();
    status_->setStyleSheet({});
    status_->setText(tr("Loading %1…").arg(dir));
    load_->setEnabled(false);
}

void ModelPanel::showSummary(const ModelSummary& summary) {
    clearDetails();
    rememberFolder(summary.dir);
    status_->setStyleSheet({});
    QString text = tr("Target: %1").arg(summary.dir);
    if (!summary.notice.isEmpty()) text += QStringLiteral("\n") + summary.notice;
    status_->setText(text);
    for (const auto& [label, value] : summary.rows) {
        auto* v = new QLabel(value, this);
        v->setAccessibleName(label);
        v->setWordWrap(true);
        v->setTextInteractionFlags(Qt::TextSelectableByMouse);
        details_->addRow(label + QLatin1Char(':'), v);
    }
    showSelected();
    bool listed = false;
    for (const ModelFolderInfo& m : infos_) listed = listed || QString::fromStdString(m.dir.string()) == summary.dir;
    if (!listed) rescan();  // a folder new to the list (cached inspections make this cheap)
}

void ModelPanel::showError(const QString& dir, const QString& error) {
    clearDetails();
    status_->setStyleSheet(QStringLiteral("color: #b00020"));
    status_->setText(tr("Could not load %1:\n%2").arg(dir, error));
    showSelected();
}

void ModelPanel::setDraftLoading(const QString& dir) {
    draftStatus_->setStyleSheet({});
    draftStatus_->setText(tr("Draft: loading %1…").arg(dir));
}

void ModelPanel::showDraft(const ModelSummary& summary) {
    draftStatus_->setStyleSheet({});
    const QString params = tr("%1 M parameters").arg(QLocale().toString(double(summary.parameters) / 1e6, 'f', 1));
    draftStatus_->setText(tr("Draft: %1 (%2). It proposes tokens and the target verifies them. Greedy runs and runs "
                             "with sequence constraints give the target's own designs; sampled runs use speculative "
                             "sampling, whose designs are distributed exactly as the target's. The run log gives each "
                             "run's acceptance, tokens per target pass and speed-up; a draft that does not pay is "
                             "switched off during the run.")
                              .arg(summary.dir, params));
    clearDraft_->setEnabled(true);
    rememberFolder(summary.dir);
}

void ModelPanel::showDraftError(const QString& dir, const QString& error) {
    draftStatus_->setStyleSheet(QStringLiteral("color: #b00020"));
    draftStatus_->setText(tr("Draft %1 refused:\n%2").arg(dir, error));
    clearDraft_->setEnabled(false);
}

void ModelPanel::showDraftCleared() {
    draftStatus_->setStyleSheet({});
    draftStatus_->setText(tr("Draft: none (speculative decoding off)."));
    clearDraft_->setEnabled(false);
}

void ModelPanel::rememberFolder(const QString& dir) {
    QStringList list = recentFolders();
    if (!list.isEmpty() && list.first() == dir) return;
    list.removeAll(dir);
    list.prepend(dir);
    while (list.size() > kMaxRecent) list.removeLast();
    QSettings().setValue(kRecentKey, list);
}

void ModelPanel::clearDetails() {
    while (details_->rowCount() > 0) details_->removeRow(0);
}

}  // namespace carbon::ui
