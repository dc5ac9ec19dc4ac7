// Synthesis rules in the window (issue 33): the Generation panel's rule-set choice and Required
// sites field build the request the CLI's --rules and --require-site build (a misspelt site is
// refused where it was typed); the Designs table's Synthesis column says which rules each design
// breaks, with where in the tooltip, sorts and filters by it (synthesis=0); Edit > Check Synthesis
// of the Sequence frames the breaches in the editor beside the enzyme sites, names the sequence in
// its summary, follows edits and clears.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTest>

#include "carbon/generation/fns_generate.h"
#include "carbon/generation/synthesis_rules.h"
#include "controllers/designs_controller.h"
#include "controllers/motif_controller.h"
#include "controllers/synthesis_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/generation_panel.h"
#include "views/sequence_editor.h"

using namespace carbon::ui;

namespace {

QString errorsShown(const QWidget& g) {
    QString all;
    for (const QLabel* l : g.findChildren<QLabel*>())
        if (!l->isHidden() && l->styleSheet().contains(QStringLiteral("#b00020"))) all += l->text();
    return all;
}

// A 300-base random design (seeded): the one of seed 3 breaks no rule of idt-gblock.
std::string cleanDesign(unsigned seed) {
    QByteArray b = ui_test::randomBases(300, seed);
    return b.toStdString();
}

}  // namespace

class TestSynthesisInWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void thePanelBuildsTheRulesAndSites() {
        GenerationPanel g;
        QComboBox* rules = g.synthesisCombo();
        QVERIFY(rules->count() == 2 + int(carbon::SynthesisRuleSet::builtin().size()));  // none, the sets, Rules File…
        rules->setCurrentIndex(rules->findData(QStringLiteral("twist-gene-fragment")));
        g.requiredSitesEdit()->setText(QStringLiteral("EcoRI@12, BsaI@40:-"));
        QVERIFY(errorsShown(g).isEmpty());
        carbon::DesignRequest r;
        QString error;
        QVERIFY2(g.buildRequest(r, error), qPrintable(error));
        // The same constraints as carbon-cli generate --rules twist-gene-fragment.
        carbon::DesignConstraints want;
        carbon::add_synthesis_constraints(carbon::SynthesisRuleSet::find("twist-gene-fragment"), want);
        QCOMPARE(r.constraints.synthesis_rules, std::string("twist-gene-fragment"));
        QCOMPARE(r.constraints.gc_spread_window, want.gc_spread_window);
        QCOMPARE(r.constraints.gc_spread_max, want.gc_spread_max);
        QCOMPARE(r.constraints.unique_kmer, size_t(20));
        QCOMPARE(r.constraints.max_run_at, 9);
        QCOMPARE(r.constraints.gc_min, 0.25);
        QCOMPARE(carbon::format_required_sites(r.constraints.required_sites), std::string("EcoRI@12,BsaI@40:-"));

        g.requiredSitesEdit()->setText(QStringLiteral("EcoRI@0"));
        QVERIFY2(errorsShown(g).contains(QStringLiteral("expected NAME@POSITION")), qPrintable(errorsShown(g)));
        QVERIFY(!g.buildRequest(r, error));
        QVERIFY2(error.startsWith(QStringLiteral("Required sites:")), qPrintable(error));
        g.requiredSitesEdit()->clear();
        QVERIFY(errorsShown(g).isEmpty());
    }

    void theDesignsTableSaysWhatBreaks() {
        DesignTableModel m;
        DesignsView v(&m);
        carbon::Design ok;
        ok.bases = cleanDesign(3);
        carbon::Design runs;
        runs.bases = cleanDesign(4);
        runs.bases.replace(99, 14, "C" + std::string(12, 'A') + "C");  // a run of 12 A (bases 101-112): IDT's limit is 9
        m.addDesign(ok, 1, 0, 300);
        m.addDesign(runs, 1, 0, 300);
        // No set chosen: the column is empty and says how to fill it.
        QCOMPARE(m.data(m.index(1, DesignTableModel::SynthesisColumn)).toString(), QString());
        QVERIFY(m.data(m.index(1, DesignTableModel::SynthesisColumn), Qt::ToolTipRole).toString().contains(QStringLiteral("Choose")));

        v.synthesisCombo()->setCurrentIndex(v.synthesisCombo()->findData(QStringLiteral("idt-gblock")));
        QVERIFY(m.synthesisRules() && m.synthesisRules()->id == "idt-gblock");
        const auto brokenBy = [&](int row) {
            return carbon::check_synthesis(*m.synthesisRules(), m.row(row).design.bases).size();
        };
        QCOMPARE(m.data(m.index(1, DesignTableModel::SynthesisColumn), DesignTableModel::SortRole).toInt(), int(brokenBy(1)));
        QVERIFY(brokenBy(1) >= 1);
        const QString cell = m.data(m.index(1, DesignTableModel::SynthesisColumn)).toString();
        QVERIFY2(cell.contains(QStringLiteral("homopolymer")), qPrintable(cell));
        const QString tip = m.data(m.index(1, DesignTableModel::SynthesisColumn), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("IDT gBlocks")) && tip.contains(QStringLiteral("12 A at 101-112")), qPrintable(tip));
        QCOMPARE(brokenBy(0), size_t(0));
        QCOMPARE(m.data(m.index(0, DesignTableModel::SynthesisColumn)).toString(), QStringLiteral("ok"));
        // synthesis=0 keeps the clean design alone
        auto* filter = v.findChild<QLineEdit*>();
        QVERIFY(filter);
        filter->setText(QStringLiteral("synthesis=0"));
        QCOMPARE(v.proxy()->rowCount(), 1);
        QCOMPARE(v.proxy()->mapToSource(v.proxy()->index(0, 0)).row(), 0);
        filter->clear();
        // Back to none: the column empties.
        v.synthesisCombo()->setCurrentIndex(0);
        QVERIFY(!m.synthesisRules());
        QCOMPARE(m.data(m.index(1, DesignTableModel::SynthesisColumn)).toString(), QString());
    }

    void theEditorFramesWhereTheSequenceBreaks() {
        QByteArray bases = ui_test::randomBases(400, 21);
        bases.replace(49, 16, "G" + QByteArray(14, 'T') + "G");      // a run of 14 T (bases 51-64)
        const QByteArray word = bases.mid(200, 25);
        bases.replace(320, 25, word);                                 // a 25-base direct repeat
        MainWindow w;
        w.document()->setBases(bases);
        QSignalSpy checked(w.synthesis(), &SynthesisController::checked);
        QCOMPARE(w.synthesis()->checkSequence(QStringLiteral("idt-gblock")), QString());
        QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
        const auto synthesisFrames = [&] {
            QVector<SequenceEditor::MotifFrame> out;
            for (const auto& f : w.editor()->motifFrames())
                if (f.label.startsWith(QStringLiteral("homopolymer")) || f.label.startsWith(QStringLiteral("repeat")) ||
                    f.label.startsWith(QStringLiteral("hairpin")))
                    out.append(f);
            return out;
        };
        bool run = false, repeatAt200 = false, repeatAt320 = false;
        for (const auto& f : synthesisFrames()) {
            run = run || (f.start == 50 && f.end == 64 && f.label.startsWith(QStringLiteral("homopolymer bases=AT max=9")));
            repeatAt200 = repeatAt200 || (f.label.startsWith(QStringLiteral("repeat k=20")) && f.start <= 200 && f.end >= 225);
            repeatAt320 = repeatAt320 || (f.label.startsWith(QStringLiteral("repeat k=20")) && f.start <= 320 && f.end >= 345);
        }
        QVERIFY(run && repeatAt200 && repeatAt320);
        QVERIFY2(w.synthesis()->summary().contains(QStringLiteral("IDT gBlocks")) &&
                     w.synthesis()->summary().contains(w.document()->displayName()),
                 qPrintable(w.synthesis()->summary()));

        // An edit that breaks the run: rechecked, its frame gone, the repeat's stays.
        w.document()->replace(55, 1, "G");
        QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 2, 20000);
        for (const auto& f : synthesisFrames()) QVERIFY(!f.label.startsWith(QStringLiteral("homopolymer")));
        QVERIFY(!synthesisFrames().isEmpty());

        QVERIFY(!w.synthesis()->checkSequence(QStringLiteral("no-such-vendor")).isEmpty());
        QCOMPARE(w.synthesis()->checkSequence(QString()), QString());
        QVERIFY(synthesisFrames().isEmpty());
    }
};

QTEST_MAIN(TestSynthesisInWindow)
#include "test_synthesis_in_window.moc"
