// DesignMapView: the designs as points on their first two principal components (a design map,
// carbon/predict/design_map.h), coloured by run, by cluster (k-means on the embeddings) or by a
// predicted output, with a heading that says how many designs, which embedding and how much of
// the variance each axis holds. Clicking a point selects its design (the designs table follows);
// designs selected in the table are ringed. No engine calls: DesignMapController fills it.
#pragma once

#include <QChartView>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <array>

class QComboBox;
class QLabel;
class QPushButton;
class QProgressBar;
class QScatterSeries;
class QSpinBox;

namespace carbon::ui {

class DesignMapView : public QWidget {
    Q_OBJECT
public:
    struct Point {
        int row = -1;          // the designs table's source row
        quint64 run = 0;
        double x = 0, y = 0;   // PC1, PC2
        int cluster = 0;
        QList<double> values;  // per output offered (NaN: not predicted)
    };
    enum class Colouring { Run, Cluster, Output };

    explicit DesignMapView(QWidget* parent = nullptr);

    // The map: its points, the predicted columns one may colour by (as the designs table heads them), the explained variance of each axis and
    // the heading's description of the embedding.
    void setMap(const QList<Point>& points, const QStringList& outputs, std::array<double, 2> explained, const QString& embedding);
    void setClusters(const QList<int>& clusterOfPoint);  // after a new k
    void clear(const QString& why);
    void setSelectedRows(const QList<int>& rows);
    void setRunning(bool running);
    void setProgress(qint64 done, qint64 total);
    void setMessage(const QString& text);

    int pointCount() const { return int(points_.size()); }
    const QList<Point>& points() const { return points_; }
    QString heading() const;
    QString message() const;
    QComboBox* colouring() const { return colour_; }
    QSpinBox* clusterSpin() const { return k_; }
    QPushButton* mapButton() const { return map_; }
    const QList<int>& selectedRows() const { return selected_; }
    // The colour a point is drawn in now (tests).
    QColor colourOf(int point) const;

signals:
    void mapRequested();
    void cancelRequested();
    void clustersRequested(int k);
    void rowsClicked(const QList<int>& rows);

private:
    void redraw();

    QList<Point> points_;
    QHash<quint64, int> runIndex_;  // each run's colour
    mutable int rangeOf_ = -1;      // the output whose range range_ holds (-1: none yet)
    mutable std::array<double, 2> range_{0, 0};
    QStringList outputs_;
    QList<int> selected_;
    QLabel* heading_;
    QComboBox* colour_;
    QSpinBox* k_;
    QPushButton* map_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* message_;
    QChartView* plot_;
    QString embedding_;
    std::array<double, 2> explained_{0, 0};
};

}  // namespace carbon::ui
