// WelcomePage: layout and texts. The walkthrough names real controls and shortcuts of this
// window; tests/ui/test_welcome.cpp follows it step by step on the sample project.
#include "welcome_page.h"

#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "carbon/gpu_provider.h"

namespace carbon::ui {

namespace {

QLabel* heading(const QString& text, QWidget* parent, int sizeDelta = 3) {
    auto* l = new QLabel(text, parent);
    QFont f = l->font();
    f.setPointSize(f.pointSize() + sizeDelta);
    f.setBold(true);
    l->setFont(f);
    return l;
}

QLabel* paragraph(const QString& html, QWidget* parent) {
    auto* l = new QLabel(html, parent);
    l->setWordWrap(true);
    l->setTextFormat(Qt::RichText);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    return l;
}

}  // namespace

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent) {
    setAccessibleName(tr("Welcome"));
    auto* outer = new QVBoxLayout(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);
    auto* body = new QWidget(scroll);
    scroll->setWidget(body);
    auto* grid = new QGridLayout(body);
    grid->setContentsMargins(24, 16, 24, 16);
    grid->setHorizontalSpacing(32);
    grid->setVerticalSpacing(8);

    grid->addWidget(heading(tr("Welcome to Carbon Studio"), body, 8), 0, 0, 1, 2);
    grid->addWidget(paragraph(tr("Design regulatory DNA with the Carbon language models: mark a region of a sequence, "
                                 "let the model write it base by base under your constraints, and compare designs "
                                 "and variants by their per-base likelihood."), body),
                    1, 0, 1, 2);

    // Column 1: start.
    auto* start = new QVBoxLayout;
    start->addWidget(heading(tr("Start"), body));
    sample_ = new QPushButton(tr("Open the &sample project"), body);
    sample_->setAccessibleName(tr("Open the sample project"));
    sample_->setToolTip(tr("Real promoter sequences from the EMBOSS test data (Debian package emboss-test), "
                           "with a marked design region, a pinned motif and a few variants"));
    auto* newProject = new QPushButton(tr("&New project…"), body);
    newProject->setAccessibleName(tr("New project"));
    auto* openProject = new QPushButton(tr("&Open project…"), body);
    openProject->setAccessibleName(tr("Open project"));
    start->addWidget(sample_);
    start->addWidget(newProject);
    start->addWidget(openProject);
    start->addWidget(new QLabel(tr("Recent projects:"), body));
    recent_ = new QListWidget(body);
    recent_->setAccessibleName(tr("Recent projects"));
    recent_->setMaximumHeight(140);
    start->addWidget(recent_);
    auto* close = new QPushButton(tr("Go to the &editor"), body);
    close->setAccessibleName(tr("Close the welcome page and go to the sequence editor"));
    start->addWidget(close);
    start->addStretch(1);
    grid->addLayout(start, 2, 0);

    // Column 2: models.
    auto* models = new QVBoxLayout;
    models->addWidget(heading(tr("Get a Carbon model"), body));
    models->addWidget(paragraph(
        tr("<p>A model is a folder in the Hugging Face layout: <tt>config.json</tt>, the weights as "
           "<tt>model.safetensors</tt> (or shards with <tt>model.safetensors.index.json</tt>) and the "
           "tokenizer files (<tt>tokenizer.json</tt>, <tt>tokenizer_config.json</tt>).</p>"
           "<p>With the Hugging Face command-line tool, on a machine with internet access:<br>"
           "<tt>hf download HuggingFaceBio/Carbon-3B --local-dir ~/models/Carbon-3B</tt><br>"
           "(also <tt>Carbon-500M</tt> and <tt>Carbon-8B</tt>), or copy such a folder from a colleague. "
           "Carbon Studio never downloads anything itself.</p>"
           "<p>Carbon-500M also serves as a draft for the 3B and 8B: pair it in the Model panel and "
           "designs come faster, unchanged.</p>"),
        body));
    models->addWidget(new QLabel(tr("Model folders found (added, or in the Hugging Face cache); activate one to load it:"), body));
    models_ = new QListWidget(body);
    models_->setAccessibleName(tr("Model folders found"));
    models_->setMaximumHeight(120);
    modelsEmpty_ = new QLabel(tr("(none yet: no folder added, and the Hugging Face cache holds no model snapshot)"), body);
    modelsEmpty_->setWordWrap(true);
    models->addWidget(models_);
    models->addWidget(modelsEmpty_);
    auto* openModel = new QPushButton(tr("Open a &model folder…"), body);
    openModel->setAccessibleName(tr("Open a model folder"));
    models->addWidget(openModel);
    const std::string gpu = carbon::gpu_status();
    models->addWidget(paragraph(gpu.rfind("GPU: ", 0) == 0
                                    ? tr("<p>Models run on the %1 (the Model panel's <i>Run on</i> chooses).</p>")
                                          .arg(QString::fromStdString(gpu.substr(5)).toHtmlEscaped())
                                    : tr("<p>Models run on the CPU here (%1): fine for scoring and for the 500M; "
                                         "designs with the 3B and 8B take minutes.</p>")
                                          .arg(QString::fromStdString(gpu).toHtmlEscaped()),
                                body));
    models->addStretch(1);
    grid->addLayout(models, 2, 1);

    // Column 3: the walkthrough.
    auto* walk = new QVBoxLayout;
    walk->addWidget(heading(tr("Five minutes: one design, one variant"), body));
    walk->addWidget(paragraph(
        tr("<ol>"
           "<li><b>Open the sample project.</b> Its first sequence opens in the editor: the design region is "
           "drawn in blue, the pinned motif in magenta. The template in the Generation panel shows the "
           "pinned bases fixed and the rest free (N).</li>"
           "<li><b>Load a model</b> (File &gt; Open Model Folder, Ctrl+M, or a folder listed here). The "
           "per-base likelihood appears under the letters.</li>"
           "<li><b>Design.</b> In the Generation panel tick a metadata tag such as &lt;promoter&gt;, set the "
           "count to 8 and press Run (F5). Designs stream into the Designs table, ranked by how well they "
           "read in their context; each keeps the pinned motif.</li>"
           "<li><b>Judge.</b> Sort by <i>Min base score</i> to find designs without a weak spot, press S to star "
           "the best, select several and <i>Overlay tracks</i> to compare them base by base. Enter opens a design "
           "in the editor (Ctrl+Z takes it back); Ctrl+E exports the selection as FASTA.</li>"
           "<li><b>Compare a variant.</b> Expand HSFOS_K00650 in the Project panel: its variants from "
           "<tt>variants.vcf</tt> are listed there. Activate <i>fos_TATA_T703G</i>: the base is selected and the "
           "Base Inspector shows the model's four probabilities there, with G chosen as the alternative; press "
           "Score variant. The chart shows the reference and alternative tracks and their difference along the "
           "window; any other base works the same way (click it, pick the alternative).</li>"
           "</ol>"
           "<p>Everything is saved in the project file as you go.</p>"),
        body));
    walk->addStretch(1);
    grid->addLayout(walk, 3, 0, 1, 2);
    grid->setColumnStretch(0, 2);
    grid->setColumnStretch(1, 3);

    connect(sample_, &QPushButton::clicked, this, &WelcomePage::openSampleRequested);
    connect(newProject, &QPushButton::clicked, this, &WelcomePage::newProjectRequested);
    connect(openProject, &QPushButton::clicked, this, &WelcomePage::openProjectRequested);
    connect(openModel, &QPushButton::clicked, this, &WelcomePage::openModelFolderRequested);
    connect(close, &QPushButton::clicked, this, &WelcomePage::dismissed);
    connect(recent_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit openRecentRequested(item->data(Qt::UserRole).toString()); });
    connect(models_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit loadModelRequested(item->data(Qt::UserRole).toString()); });
    setModelFolders({});
}

void WelcomePage::setModelFolders(const QList<QPair<QString, QString>>& folders) {
    models_->clear();
    for (const auto& [text, dir] : folders) {
        auto* item = new QListWidgetItem(text, models_);
        item->setData(Qt::UserRole, dir);
        item->setToolTip(dir);
    }
    models_->setVisible(!folders.isEmpty());
    modelsEmpty_->setVisible(folders.isEmpty());
}

void WelcomePage::setRecentProjects(const QStringList& paths) {
    recent_->clear();
    for (const QString& p : paths) {
        auto* item = new QListWidgetItem(QFileInfo(p).fileName(), recent_);
        item->setData(Qt::UserRole, p);
        item->setToolTip(p);
    }
    if (paths.isEmpty()) new QListWidgetItem(tr("(none yet)"), recent_);
}

}  // namespace carbon::ui
