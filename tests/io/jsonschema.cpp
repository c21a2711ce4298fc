#include "tests/io/jsonschema.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

namespace {

bool hasType(const QJsonValue &v, const QString &type)
{
    if (type == "object")
        return v.isObject();
    if (type == "array")
        return v.isArray();
    if (type == "string")
        return v.isString();
    if (type == "boolean")
        return v.isBool();
    if (type == "null")
        return v.isNull();
    if (type == "number")
        return v.isDouble();
    if (type == "integer")
        return v.isDouble() && v.toDouble() == static_cast<double>(static_cast<qint64>(v.toDouble()));
    return false;
}

} // namespace

QString validateJson(const QJsonValue &v, const QJsonValue &schemaValue, const QString &path)
{
    if (schemaValue.isBool())
        return schemaValue.toBool() ? QString() : path + ": not allowed";
    const QJsonObject s = schemaValue.toObject();
    if (s.contains("type")) {
        QStringList types;
        if (s["type"].isArray())
            for (const auto &t : s["type"].toArray())
                types << t.toString();
        else
            types << s["type"].toString();
        bool ok = false;
        for (const QString &t : types)
            ok |= hasType(v, t);
        if (!ok)
            return path + ": expected " + types.join(" or ");
    }
    if (s.contains("const") && v != s["const"])
        return path + ": expected the constant value";
    if (s.contains("enum") && !s["enum"].toArray().contains(v))
        return path + ": not one of the allowed values";
    if (s.contains("minimum") && v.isDouble() && v.toDouble() < s["minimum"].toDouble())
        return path + ": below the minimum";
    if (s.contains("pattern") && v.isString() &&
        !QRegularExpression(s["pattern"].toString()).match(v.toString()).hasMatch())
        return path + ": does not match " + s["pattern"].toString();
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (const auto &r : s["required"].toArray())
            if (!o.contains(r.toString()))
                return path + ": missing required '" + r.toString() + "'";
        const QJsonObject props = s["properties"].toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString p = path + "." + it.key();
            QString e;
            if (props.contains(it.key()))
                e = validateJson(it.value(), props[it.key()], p);
            else if (s.contains("additionalProperties"))
                e = validateJson(it.value(), s["additionalProperties"], p);
            if (!e.isEmpty())
                return e;
        }
    }
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        if (s.contains("minItems") && a.size() < s["minItems"].toInt())
            return path + ": too few items";
        if (s.contains("maxItems") && a.size() > s["maxItems"].toInt())
            return path + ": too many items";
        const QJsonArray prefix = s["prefixItems"].toArray();
        for (qsizetype i = 0; i < a.size(); ++i) {
            const QString p = path + "[" + QString::number(i) + "]";
            QString e;
            if (i < prefix.size())
                e = validateJson(a[i], prefix[i], p);
            else if (s.contains("items"))
                e = validateJson(a[i], s["items"], p);
            if (!e.isEmpty())
                return e;
        }
    }
    return {};
}
