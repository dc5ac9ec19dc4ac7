// Restriction enzymes by name in the generation panel's Forbidden field (issue 33): "EcoRI, gaattc,
// BsaI" builds a request that forbids the enzymes by name and the motif upper-cased (the engine
// takes the enzymes' sites: enzymes.h); a mistyped name is refused where the user typed it (the
// field's own error line, and the request's error), with the engine's suggestion for a name that
// differs only in case.
#include <QLabel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTest>

#include "carbon/generation/fns_generate.h"
#include "views/generation_panel.h"

using namespace carbon::ui;

namespace {

// The panel's visible error lines' text.
QString errorsShown(const GenerationPanel& g) {
    QString all;
    for (const QLabel* l : g.findChildren<QLabel*>())
        if (!l->isHidden() && l->styleSheet().contains(QStringLiteral("#b00020"))) all += l->text();
    return all;
}

}  // namespace

class TestForbiddenEnzymes : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void enzymesByNameBuildTheRequest() {
        GenerationPanel g;
        auto* field = g.findChild<QLineEdit*>(QStringLiteral("forbiddenMotifs"));
        QVERIFY(field);
        field->setText(QStringLiteral("EcoRI, gaattc, BsaI"));
        QVERIFY(errorsShown(g).isEmpty());
        carbon::DesignRequest r;
        QString error;
        QVERIFY2(g.buildRequest(r, error), qPrintable(error));
        QCOMPARE(r.constraints.forbidden_motifs, (std::vector<std::string>{"EcoRI", "GAATTC", "BsaI"}));
    }

    void aMistypedNameIsRefusedWhereTyped() {
        GenerationPanel g;
        auto* field = g.findChild<QLineEdit*>(QStringLiteral("forbiddenMotifs"));
        field->setText(QStringLiteral("GAATTC, ecori"));
        QVERIFY2(errorsShown(g).contains(QStringLiteral("did you mean EcoRI?")), qPrintable(errorsShown(g)));
        carbon::DesignRequest r;
        QString error;
        QVERIFY(!g.buildRequest(r, error));
        QVERIFY2(error.contains(QStringLiteral("'ecori'")), qPrintable(error));
        field->setText(QStringLiteral("EcoRl"));
        QVERIFY(errorsShown(g).contains(QStringLiteral("'EcoRl' is neither a DNA motif")));
        field->setText(QStringLiteral("EcoRI"));
        QVERIFY(errorsShown(g).isEmpty());
    }
};

QTEST_MAIN(TestForbiddenEnzymes)
#include "test_forbidden_enzymes.moc"
