// TrackChartView: per-base tracks (log p, entropy, ref/alt/delta, overlaid designs) as line
// series in a Qt Charts view. Horizontal rubber band or the wheel zooms, a middle / right drag
// or the arrow keys pan, Home resets, and hovering a series shows position and value.
#pragma once

#include <QChartView>
#include <QList>
#include <QString>
#include <QVector>

class QLabel;

namespace carbon::ui {

class TrackChartView : public QChartView {
    Q_OBJECT
public:
    struct Track {
        QString name;
        QVector<float> values;  // NaN: gap
        bool secondaryAxis = false;  // plotted against the right-hand axis (e.g. a delta)
    };
    explicit TrackChartView(QWidget* parent = nullptr);

    // Replaces the tracks; x is the 1-based sequence position, first value at `firstPosition`.
    // Names are shown as written (a tag such as <promoter> is text, not markup).
    void setTracks(const QList<Track>& tracks, qint64 firstPosition, const QString& yTitle,
                   const QString& y2Title = {});
    void clear();  // no tracks
    int seriesCount() const;
    // Counts the setTracks / clear calls: whoever drew the tracks can tell whether they are still
    // the ones shown.
    quint64 revision() const { return revision_; }

protected:
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    QLabel* readout_;
    QPoint panFrom_;
    bool panning_ = false;
    quint64 revision_ = 0;
};

}  // namespace carbon::ui
