// StepperDelegate: an item delegate whose per-cell look (tint, text colour,
// bold) is decided by a small function reading the model's roles — the
// stepper and comparison tables mark decisions, overrides, outcomes and
// winners this way while their models stay Qt Core only. Also the colours
// they share, chosen to read on light and dark palettes alike.
#pragma once

#include <QColor>
#include <QStyledItemDelegate>

#include <functional>

namespace tessera::views {

class StepperDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using Styler = std::function<void(QStyleOptionViewItem &option, const QModelIndex &index)>;
    StepperDelegate(Styler styler, QObject *parent);

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    Styler m_styler;
};

namespace stepcolors {
// good: applied, better, used · bad: rejected · warn: stale, forced · accent: decisions
inline QColor good()
{
    return {0x2e, 0xa0, 0x43};
}
inline QColor bad()
{
    return {0xcf, 0x22, 0x2e};
}
inline QColor warn()
{
    return {0xbf, 0x87, 0x00};
}
inline QColor accent()
{
    return {0x3b, 0x82, 0xf6};
}
// A translucent version for row backgrounds.
inline QColor tint(QColor c, int alpha = 44)
{
    c.setAlpha(alpha);
    return c;
}
} // namespace stepcolors

} // namespace tessera::views
