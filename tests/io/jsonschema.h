// A small JSON Schema (2020-12) validator for the keywords Tessera's schemas
// use: type, required, properties, additionalProperties, items, prefixItems,
// minItems, maxItems, enum, const, minimum, pattern. Returns the first
// violation as "path: problem", or "" when the instance is valid.
#pragma once

#include <QJsonValue>
#include <QString>

QString validateJson(const QJsonValue &instance, const QJsonValue &schema, const QString &path = QStringLiteral("$"));
