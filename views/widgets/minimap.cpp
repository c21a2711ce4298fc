// MiniMap (minimap.h): the scene rendered small, plus the view's rectangle.
#include "views/widgets/minimap.h"

#include "views/widgets/graphview.h"
#include "views/widgets/graphviewstyle.h"

#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>

namespace tessera {

MiniMap::MiniMap(GraphView *view, QWidget *parent) : QWidget(parent), m_view(view)
{
    setMinimumSize(80, 60);
    setCursor(Qt::PointingHandCursor);
    setAttribute(Qt::WA_OpaquePaintEvent);
    if (!view)
        return;
    connect(view, &GraphView::viewportChanged, this, qOverload<>(&QWidget::update));
    connect(view, &GraphView::layoutFinished, this, &MiniMap::invalidate);
    connect(view->scene(), &QGraphicsScene::changed, this, &MiniMap::invalidate);
}

QSize MiniMap::sizeHint() const
{
    return {220, 160};
}

void MiniMap::invalidate()
{
    m_dirty = true;
    update();
}

QRectF MiniMap::targetRect() const
{
    if (!m_view || m_view->scene()->items().isEmpty())
        return {};
    const QRectF scene = m_view->scene()->sceneRect();
    const QRectF area = QRectF(rect()).adjusted(4, 4, -4, -4);
    const qreal s = std::min(area.width() / scene.width(), area.height() / scene.height());
    QRectF t(0, 0, scene.width() * s, scene.height() * s);
    t.moveCenter(area.center());
    return t;
}

void MiniMap::rebuildPixmap()
{
    m_dirty = false;
    const qreal dpr = devicePixelRatioF();
    m_pixmap = QPixmap((QSizeF(size()) * dpr).toSize());
    m_pixmap.setDevicePixelRatio(dpr);
    m_pixmap.fill(graphstyle::background());
    const QRectF target = targetRect();
    if (target.isEmpty())
        return;
    QPainter p(&m_pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    m_view->scene()->render(&p, target, m_view->scene()->sceneRect(), Qt::IgnoreAspectRatio);
}

void MiniMap::paintEvent(QPaintEvent *)
{
    if (m_dirty || m_pixmap.size() != size() * devicePixelRatioF())
        rebuildPixmap();
    QPainter p(this);
    p.drawPixmap(0, 0, m_pixmap);
    p.setPen(QPen(graphstyle::frameBorder(), 1));
    p.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
    const QRectF target = targetRect();
    if (target.isEmpty())
        return;
    const QRectF scene = m_view->scene()->sceneRect();
    const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect().intersected(scene);
    const qreal s = target.width() / scene.width();
    const QRectF box(target.left() + (visible.left() - scene.left()) * s,
                     target.top() + (visible.top() - scene.top()) * s, visible.width() * s, visible.height() * s);
    p.setRenderHint(QPainter::Antialiasing);
    QColor fill = graphstyle::selectionColor();
    fill.setAlpha(40);
    p.setBrush(fill);
    p.setPen(QPen(graphstyle::selectionColor(), 1.5));
    p.drawRect(box);
}

void MiniMap::resizeEvent(QResizeEvent *)
{
    m_dirty = true;
}

void MiniMap::navigateTo(QPointF widgetPos)
{
    const QRectF target = targetRect();
    if (target.isEmpty())
        return;
    const QRectF scene = m_view->scene()->sceneRect();
    const qreal s = scene.width() / target.width();
    m_view->centerOn(scene.left() + (widgetPos.x() - target.left()) * s,
                     scene.top() + (widgetPos.y() - target.top()) * s);
}

void MiniMap::mousePressEvent(QMouseEvent *e)
{
    if (e->button() == Qt::LeftButton)
        navigateTo(e->position());
}

void MiniMap::mouseMoveEvent(QMouseEvent *e)
{
    if (e->buttons() & Qt::LeftButton)
        navigateTo(e->position());
}

} // namespace tessera
