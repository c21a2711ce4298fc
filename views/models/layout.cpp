// layoutAuto and curve helpers shared by the two engines (layout.h).
#include "views/models/layout.h"

namespace tessera::layout {

Output layoutAuto(const Input &in, int dotLimit)
{
    if (static_cast<int>(in.sizes.size()) <= dotLimit) {
        Output out = layoutDot(in);
        if (out.ok)
            return out;
    }
    return layoutLayered(in);
}

QPointF bezierPoint(QPointF p0, QPointF c1, QPointF c2, QPointF p1, double t)
{
    const double u = 1 - t;
    return u * u * u * p0 + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t * t * t * p1;
}

} // namespace tessera::layout
