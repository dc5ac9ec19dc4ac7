// The designs table: numeric sorting of every score column through the proxy, the bases and verdict filters, star / discard;
// the objective and the predicted outputs (columns that come with the rows, sorted and filtered by name, the predictor and its
// held-out accuracy in the tooltip).
#include <QSortFilterProxyModel>
#include <cmath>
#include <QLineEdit>
#include <QTableView>
#include <QTest>

#include "views/design_table_model.h"
#include "views/designs_view.h"

using namespace carbon::ui;

class TestDesignTable : public QObject {
    Q_OBJECT
private slots:
    void sortsNumerically() {
        DesignTableModel model;
        auto design = [](int rank, double dlp, double rlp, const char* bases) {
            carbon::Design d;
            d.rank = rank;
            d.design_logp = dlp;
            d.ranking_logp = rlp;
            d.bases = bases;
            return d;
        };
        model.addDesign(design(10, -1.5, -1.2, "GGGGCCCCAT"), 1, 0, 0);
        model.addDesign(design(2, -0.9, -1.4, "ATATATAT"), 1, 0, 0);
        model.addDesign(design(1, -1.1, -1.1, "GCGCATATATAT"), 1, 0, 0);
        // The proxy exactly as the designs dock configures it.
        DesignsView view(&model);
        QSortFilterProxyModel& proxy = *view.proxy();
        auto column = [&](int c) {
            QList<QVariant> v;
            for (int r = 0; r < proxy.rowCount(); ++r) v << proxy.index(r, c).data(DesignTableModel::SortRole);
            return v;
        };
        proxy.sort(DesignTableModel::RankColumn, Qt::AscendingOrder);
        QCOMPARE(column(DesignTableModel::RankColumn), (QList<QVariant>{1, 2, 10}));  // 10 after 2: numeric
        proxy.sort(DesignTableModel::DesignScoreColumn, Qt::DescendingOrder);
        QCOMPARE(column(DesignTableModel::DesignScoreColumn), (QList<QVariant>{-0.9, -1.1, -1.5}));
        proxy.sort(DesignTableModel::RankingScoreColumn, Qt::DescendingOrder);
        QCOMPARE(column(DesignTableModel::RankingScoreColumn), (QList<QVariant>{-1.1, -1.2, -1.4}));
        proxy.sort(DesignTableModel::GcColumn, Qt::AscendingOrder);
        QCOMPARE(column(DesignTableModel::GcColumn).first().toDouble(), 0.0);
        QCOMPARE(column(DesignTableModel::GcColumn).last().toDouble(), 80.0);
        proxy.sort(DesignTableModel::LengthColumn, Qt::AscendingOrder);
        QCOMPARE(column(DesignTableModel::LengthColumn), (QList<QVariant>{8ULL, 10ULL, 12ULL}));
        // The filter box (case-insensitive, over the full bases).
        QLineEdit* filter = view.findChild<QLineEdit*>();
        QVERIFY(filter);
        filter->setText(QStringLiteral("gcgc"));
        QCOMPARE(proxy.rowCount(), 1);
        filter->clear();
        QCOMPARE(proxy.rowCount(), 3);
        // Value terms: GC% 80 / 0 / 33.3, lengths 10 / 8 / 12.
        filter->setText(QStringLiteral("gc>=50"));
        QCOMPARE(proxy.rowCount(), 1);
        filter->setText(QStringLiteral("len<12 at"));  // both terms: short and containing AT
        QCOMPARE(proxy.rowCount(), 2);
        filter->setText(QStringLiteral("score>-1.2 rank<=2"));  // -0.9 (rank 2) and -1.1 (rank 1)
        QCOMPARE(proxy.rowCount(), 2);
        filter->setText(QStringLiteral("constraints=met"));
        QCOMPARE(proxy.rowCount(), 0);
        filter->setText(QStringLiteral("gc>abc"));  // not a number: said in red, the term ignored
        QCOMPARE(proxy.rowCount(), 3);
        QVERIFY(filter->toolTip().contains(QStringLiteral("not a number")));
        filter->clear();

        // Star / discard toggle on the selection, and the verdict filter.
        view.table()->selectRow(0);
        view.starSelection();
        const int starredRow = view.selectedSourceRows().first();
        QCOMPARE(model.row(starredRow).flag, QStringLiteral("starred"));
        view.setFlagFilter(DesignsView::FlagFilter::Starred);
        QCOMPARE(proxy.rowCount(), 1);
        view.setFlagFilter(DesignsView::FlagFilter::All);
        view.table()->selectRow(1);
        view.discardSelection();
        view.setFlagFilter(DesignsView::FlagFilter::HideDiscarded);
        QCOMPARE(proxy.rowCount(), 2);
        view.setFlagFilter(DesignsView::FlagFilter::All);
        view.table()->clearSelection();
        view.table()->selectRow(proxy.mapFromSource(model.index(starredRow, 0)).row());
        view.starSelection();  // starring a starred design clears it
        QCOMPARE(model.row(starredRow).flag, QString());

        // The minimum per-base score sorts numerically, unscored rows last in descending order.
        model.setMinBaseScores(1, {-3.5, -0.5});
        proxy.sort(DesignTableModel::MinBaseScoreColumn, Qt::DescendingOrder);
        QCOMPARE(column(DesignTableModel::MinBaseScoreColumn), (QList<QVariant>{-0.5, -3.5, -1e300}));
    }

    void showsPredictedOutputs() {
        DesignTableModel model;
        DesignsView view(&model);
        QSortFilterProxyModel& proxy = *view.proxy();
        auto row = [](const char* bases, double objective, std::vector<carbon::storage::DesignPrediction> predicted) {
            DesignRow r;
            r.design.bases = bases;
            r.run = 3;
            r.objective = objective;
            r.predictions = std::move(predicted);
            return r;
        };
        const std::string by = "'round 1' in lab.carbon";
        const std::string acc = "held-out Pearson r 0.81 [0.74, 0.86], Spearman 0.79, n 120 (5-fold)";
        model.setRows({row("ACGT", 1.5, {{by, "K562", 2.0, acc}, {by, "HepG2", 0.5, acc}}),
                       row("GGCC", -0.25, {{by, "K562", 0.75, acc}, {by, "HepG2", 1.0, acc}}),
                       row("TTAA", std::nan(""), {})});
        QCOMPARE(model.predictionNames(), (QStringList{QStringLiteral("K562"), QStringLiteral("HepG2")}));
        QCOMPARE(model.predictionKeys().size(), 2);
        QCOMPARE(model.columnCount(), int(DesignTableModel::ColumnCount) + 2);
        const int k562 = model.predictionColumn(QStringLiteral("k562"));
        QCOMPARE(k562, int(DesignTableModel::ColumnCount));
        QCOMPARE(model.headerData(k562, Qt::Horizontal).toString(), QStringLiteral("K562 (pred.)"));
        QCOMPARE(model.index(0, k562).data().toString(), QStringLiteral("2"));
        QVERIFY(model.index(0, k562).data(Qt::ToolTipRole).toString().contains(QString::fromStdString(acc)));
        QVERIFY(model.index(0, k562).data(Qt::ToolTipRole).toString().contains(QString::fromStdString(by)));
        QCOMPARE(model.index(2, k562).data().toString(), QString());  // not predicted: empty, never 0
        QVERIFY(model.index(2, k562).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Not predicted")));
        QCOMPARE(model.index(1, DesignTableModel::ObjectiveColumn).data().toString(), QStringLiteral("-0.25"));
        // Sorted as numbers, designs without a value last in descending order.
        proxy.sort(k562, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, DesignTableModel::BasesColumn).data().toString(), QStringLiteral("ACGT"));
        QCOMPARE(proxy.index(2, DesignTableModel::BasesColumn).data().toString(), QStringLiteral("TTAA"));
        proxy.sort(DesignTableModel::ObjectiveColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(2, DesignTableModel::BasesColumn).data().toString(), QStringLiteral("ACGT"));
        // Filtered by the output's name (any case) and by the objective; no value fails the term.
        QLineEdit* filter = view.findChild<QLineEdit*>();
        QVERIFY(filter);
        filter->setText(QStringLiteral("k562>0.5"));
        QCOMPARE(proxy.rowCount(), 2);
        filter->setText(QStringLiteral("HepG2>=1"));
        QCOMPARE(proxy.rowCount(), 1);
        filter->setText(QStringLiteral("objective<0"));
        QCOMPARE(proxy.rowCount(), 1);
        // A term typed before the column exists applies once rows bring it.
        filter->setText(QStringLiteral("sknsh>1"));
        QCOMPARE(proxy.rowCount(), 0);  // no such column yet: read as bases text, which no design holds
        model.addRow(row("CCCC", 3.0, {{by, "SKNSH", 4.0, acc}}));
        QCOMPARE(model.columnCount(), int(DesignTableModel::ColumnCount) + 3);
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.index(0, DesignTableModel::BasesColumn).data().toString(), QStringLiteral("CCCC"));
        // A predictor run over rows already there: replaces its own value, adds its new outputs.
        model.setPredictions({0}, {{{by, "K562", 9.0, acc}, {"p2.json", "GM12878", 1.0, ""}}});
        QCOMPARE(model.index(0, k562).data().toString(), QStringLiteral("9"));
        QCOMPARE(model.row(0).predictions.size(), size_t(3));
        QVERIFY(model.predictionColumn(QStringLiteral("GM12878")) >= 0);
        // Another predictor of K562: its own column, both headed by their predictor; each cell the
        // value of its own predictor, never the other's.
        const std::string other = "'round 2' in lab.carbon";
        model.setPredictions({1}, {{{other, "K562", -7.0, ""}}});
        const int k562b = int(DesignTableModel::ColumnCount) + int(model.predictionKeys().size()) - 1;
        QCOMPARE(model.headerData(k562, Qt::Horizontal).toString(), QStringLiteral("K562 (") + QString::fromStdString(by) + QLatin1Char(')'));
        QCOMPARE(model.headerData(k562b, Qt::Horizontal).toString(), QStringLiteral("K562 (") + QString::fromStdString(other) + QLatin1Char(')'));
        QCOMPARE(model.index(1, k562).data().toString(), QStringLiteral("0.75"));
        QCOMPARE(model.index(1, k562b).data().toString(), QStringLiteral("-7"));
        QCOMPARE(model.index(0, k562b).data().toString(), QString());  // not predicted by the second
        QCOMPARE(model.predictionColumn(QStringLiteral("k562")), k562);  // a filter's name: the first column
        model.clear();
        QCOMPARE(model.columnCount(), int(DesignTableModel::ColumnCount));
    }
};

QTEST_MAIN(TestDesignTable)
#include "test_design_table.moc"
