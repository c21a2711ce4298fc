// Sliding-window attributes and the forward output-extent rule (window.h),
// following the ONNX Conv-11 and MaxPool-12/AveragePool-11 specs.
#include "core/ops/window.h"

namespace tessera::ops::detail {

namespace {
Expected<std::vector<std::int64_t>> listAttr(const OpContext &c, std::string_view name, std::size_t count,
                                             std::int64_t def, std::int64_t min)
{
    if (!c.n.attr(name))
        return std::vector<std::int64_t>(count, def);
    std::vector<std::int64_t> v = c.n.attrInts(name);
    if (v.size() != count)
        return c.fail(std::string(name) + " has " + std::to_string(v.size()) + " entries, expected " +
                      std::to_string(count));
    for (std::int64_t x : v)
        if (x < min || x > kMaxExtent)
            return c.fail(std::string(name) + " value " + std::to_string(x) + " is out of range [" +
                          std::to_string(min) + ", " + std::to_string(kMaxExtent) + "]");
    return v;
}
} // namespace

Expected<WindowAttrs> readWindowAttrs(const OpContext &c, std::size_t k)
{
    WindowAttrs a;
    const std::string autoPad = c.n.attrString("auto_pad", "NOTSET");
    if (autoPad == "NOTSET" || autoPad.empty())
        a.autoPad = AutoPad::NotSet;
    else if (autoPad == "SAME_UPPER")
        a.autoPad = AutoPad::SameUpper;
    else if (autoPad == "SAME_LOWER")
        a.autoPad = AutoPad::SameLower;
    else if (autoPad == "VALID")
        a.autoPad = AutoPad::Valid;
    else
        return c.fail("auto_pad '" + autoPad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    auto strides = listAttr(c, "strides", k, 1, 1);
    if (!strides)
        return strides.status();
    auto dilations = listAttr(c, "dilations", k, 1, 1);
    if (!dilations)
        return dilations.status();
    auto pads = listAttr(c, "pads", 2 * k, 0, 0);
    if (!pads)
        return pads.status();
    a.strides = std::move(*strides);
    a.dilations = std::move(*dilations);
    a.pads = std::move(*pads);
    return a;
}

Expected<Shape> readKernelShape(const OpContext &c, std::size_t k, const Shape *weightSpatial)
{
    if (!c.n.attr("kernel_shape")) {
        if (!weightSpatial)
            return c.fail("kernel_shape is missing");
        for (std::int64_t d : *weightSpatial)
            if (d < 1)
                return c.fail("weight spatial shape " + dimsStr(*weightSpatial) + " has an empty dimension");
        return *weightSpatial;
    }
    Shape ks = c.n.attrInts("kernel_shape");
    if (ks.size() != k)
        return c.fail("kernel_shape has " + std::to_string(ks.size()) + " entries, expected " + std::to_string(k));
    for (std::int64_t d : ks)
        if (d < 1 || d > kMaxExtent)
            return c.fail("kernel_shape " + dimsStr(ks) + " has a non-positive or too large entry");
    if (weightSpatial && ks != *weightSpatial)
        return c.fail("kernel_shape " + dimsStr(ks) + " does not match the weight's spatial shape " +
                      dimsStr(*weightSpatial));
    return ks;
}

Expected<std::vector<Window>> forwardWindows(const OpContext &c, const WindowAttrs &a, const Shape &inSpatial,
                                             const Shape &kernel, bool ceilMode)
{
    const std::size_t k = inSpatial.size();
    std::vector<Window> ws(k);
    for (std::size_t i = 0; i < k; ++i) {
        Window &w = ws[i];
        w.in = inSpatial[i];
        w.taps = kernel[i];
        w.stride = a.strides[i];
        w.dilation = a.dilations[i];
        const auto span = mulChecked(w.taps - 1, w.dilation);
        if (!span || *span >= kMaxExtent)
            return c.fail("kernel extent overflows along spatial axis " + std::to_string(i));
        const std::int64_t ext = w.extent();
        const std::string axisName = " along spatial axis " + std::to_string(i);
        switch (a.autoPad) {
        case AutoPad::NotSet: {
            w.padBegin = a.pads[i];
            w.padEnd = a.pads[k + i];
            const std::int64_t padded = w.in + w.padBegin + w.padEnd;
            if (padded < ext)
                return c.fail("kernel extent " + std::to_string(ext) + " exceeds padded input " +
                              std::to_string(padded) + axisName);
            if (ceilMode) {
                w.out = ceilDiv(padded - ext, w.stride) + 1;
                if ((w.out - 1) * w.stride >= w.in + w.padBegin)
                    --w.out; // the last window would start in the end padding
            } else {
                w.out = (padded - ext) / w.stride + 1;
            }
            break;
        }
        case AutoPad::SameUpper:
        case AutoPad::SameLower: {
            w.out = ceilDiv(w.in, w.stride);
            const std::int64_t total = std::max<std::int64_t>(0, (w.out - 1) * w.stride + ext - w.in);
            w.padBegin = a.autoPad == AutoPad::SameUpper ? total / 2 : total - total / 2;
            w.padEnd = total - w.padBegin;
            break;
        }
        case AutoPad::Valid:
            if (w.in < ext)
                return c.fail("kernel extent " + std::to_string(ext) + " exceeds input " + std::to_string(w.in) +
                              axisName);
            w.out = (w.in - ext) / w.stride + 1;
            break;
        }
    }
    return ws;
}

} // namespace tessera::ops::detail
