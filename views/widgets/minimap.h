// MiniMap: a small overview of a GraphView's whole scene with the visible
// region drawn as a rectangle; click or drag in it to move the view there.
// The scene is rendered once into a pixmap per layout/overlay change; pans and
// zooms only repaint the rectangle.
#pragma once

#include <QPixmap>
#include <QPointer>
#include <QWidget>

namespace tessera {

class GraphView;

class MiniMap : public QWidget
{
    Q_OBJECT

public:
    explicit MiniMap(GraphView *view, QWidget *parent = nullptr);

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *e) override;
    void resizeEvent(QResizeEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;
    void mouseMoveEvent(QMouseEvent *e) override;

private:
    void invalidate(); // the scene changed: re-render the pixmap on next paint
    void rebuildPixmap();
    QRectF targetRect() const; // where the scene lands inside the widget
    void navigateTo(QPointF widgetPos);

    QPointer<GraphView> m_view;
    QPixmap m_pixmap;
    bool m_dirty = true;
};

} // namespace tessera
