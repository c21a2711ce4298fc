// OptionsModel (see optionsmodel.h).
#include "views/models/optionsmodel.h"

#include "core/support/assert.h"

#include <QLocale>
#include <QStringList>

#include <cmath>

namespace tessera::views {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

// A Double option may declare its default as an integer literal.
OptionValue normalized(const OptionSpec &spec, OptionValue v)
{
    if (spec.kind == OptionSpec::Kind::Double)
        if (const auto *i = std::get_if<std::int64_t>(&v))
            return static_cast<double>(*i);
    return v;
}

// Text for the view and for the user's map: integers in full, doubles in the
// shortest form that reads back exactly, booleans as true/false.
QString valueText(const OptionValue &v)
{
    if (const auto *i = std::get_if<std::int64_t>(&v))
        return QString::number(*i);
    if (const auto *d = std::get_if<double>(&v))
        return QString::number(*d, 'g', QLocale::FloatingPointShortest);
    if (const auto *b = std::get_if<bool>(&v))
        return *b ? QStringLiteral("true") : QStringLiteral("false");
    return qs(std::get<std::string>(v));
}

QVariant typed(const OptionValue &v)
{
    if (const auto *i = std::get_if<std::int64_t>(&v))
        return QVariant::fromValue(static_cast<qlonglong>(*i));
    if (const auto *d = std::get_if<double>(&v))
        return *d;
    if (const auto *b = std::get_if<bool>(&v))
        return *b;
    return qs(std::get<std::string>(v));
}

bool declaredBound(double b)
{
    return std::isfinite(b) && std::abs(b) < 1e299; // the OptionSpec defaults are ±1e300
}

QString boundText(const OptionSpec &s, double b)
{
    if (s.kind == OptionSpec::Kind::Int && std::abs(b) < 9e18)
        return QString::number(static_cast<qlonglong>(b));
    return QString::number(b, 'g', QLocale::FloatingPointShortest);
}

// The help line plus what is valid: a range or the choices.
QString toolTip(const OptionSpec &s)
{
    QString tip = qs(s.help);
    const bool numeric = s.kind == OptionSpec::Kind::Int || s.kind == OptionSpec::Kind::Double;
    if (numeric && (declaredBound(s.min) || declaredBound(s.max))) {
        const QString lo = declaredBound(s.min) ? boundText(s, s.min) : QStringLiteral("−∞");
        const QString hi = declaredBound(s.max) ? boundText(s, s.max) : QStringLiteral("∞");
        tip += QStringLiteral("\nrange [%1, %2]").arg(lo, hi);
    } else if (s.kind == OptionSpec::Kind::Enum) {
        QStringList choices;
        for (const auto &c : s.choices)
            choices << qs(c);
        tip += QStringLiteral("\nchoices: ") + choices.join(QStringLiteral(", "));
    }
    return tip;
}

// The text an edit stands for, from whatever type the view handed over.
QString editText(const OptionSpec &s, const QVariant &value)
{
    switch (s.kind) {
    case OptionSpec::Kind::Int:
        if (value.typeId() == QMetaType::LongLong || value.typeId() == QMetaType::Int ||
            value.typeId() == QMetaType::UInt || value.typeId() == QMetaType::ULongLong)
            return QString::number(value.toLongLong());
        break;
    case OptionSpec::Kind::Double:
        if (value.typeId() == QMetaType::Double || value.typeId() == QMetaType::Float)
            return QString::number(value.toDouble(), 'g', QLocale::FloatingPointShortest);
        break;
    case OptionSpec::Kind::Bool:
        if (value.typeId() == QMetaType::Bool)
            return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        break;
    case OptionSpec::Kind::Enum:
    case OptionSpec::Kind::String: return value.toString();
    }
    return value.toString().trimmed();
}

} // namespace

OptionsModel::OptionsModel(QObject *parent) : QAbstractTableModel(parent) {}

bool OptionsModel::isRow(const QModelIndex &index) const
{
    return index.isValid() && index.model() == this && index.row() < rowCount() && index.column() < ColumnCount;
}

void OptionsModel::setSpecs(std::vector<OptionSpec> specs, std::map<std::string, std::string> user)
{
    beginResetModel();
    m_specs = std::move(specs);
    m_user = std::move(user);
    m_lastError.clear();
    endResetModel();
}

void OptionsModel::setUserOptions(std::map<std::string, std::string> user)
{
    if (user == m_user)
        return;
    m_user = std::move(user);
    if (!m_specs.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void OptionsModel::resetToDefaults()
{
    m_lastError.clear();
    if (m_user.empty())
        return;
    m_user.clear();
    if (!m_specs.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit userOptionsChanged(m_user);
}

bool OptionsModel::setOptionText(const std::string &key, const std::string &text)
{
    auto resolved = OptionValues::resolve(m_specs, {{key, text}});
    if (!resolved) {
        reject(qs(resolved.status().message()));
        return false;
    }
    const int row = rowOfKey(key);
    TS_ASSERT(row >= 0); // resolve() rejects unknown keys
    const OptionSpec &spec = m_specs[static_cast<std::size_t>(row)];
    const OptionValue value = normalized(spec, resolved->all().at(key));

    auto user = m_user;
    if (value == normalized(spec, spec.defaultValue))
        user.erase(key);
    else
        user[key] = spec.kind == OptionSpec::Kind::String ? text : valueText(value).toStdString();
    m_lastError.clear();
    if (user == m_user)
        return true;
    m_user = std::move(user);
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    emit userOptionsChanged(m_user);
    return true;
}

void OptionsModel::reject(const QString &message)
{
    m_lastError = message;
    emit editRejected(message);
}

QString OptionsModel::validate() const
{
    auto resolved = OptionValues::resolve(m_specs, m_user);
    return resolved ? QString() : qs(resolved.status().message());
}

int OptionsModel::rowOfKey(const std::string &key) const
{
    for (std::size_t i = 0; i < m_specs.size(); ++i)
        if (m_specs[i].key == key)
            return static_cast<int>(i);
    return -1;
}

OptionValue OptionsModel::current(int row, QString *error) const
{
    const OptionSpec &spec = m_specs[static_cast<std::size_t>(row)];
    auto it = m_user.find(spec.key);
    if (it == m_user.end())
        return normalized(spec, spec.defaultValue);
    auto resolved = OptionValues::resolve(m_specs, {{spec.key, it->second}});
    if (!resolved) {
        if (error)
            *error = qs(resolved.status().message());
        return normalized(spec, spec.defaultValue);
    }
    return normalized(spec, resolved->all().at(spec.key));
}

bool OptionsModel::isModified(int row) const
{
    const OptionSpec &spec = m_specs[static_cast<std::size_t>(row)];
    if (!m_user.count(spec.key))
        return false;
    QString error;
    const OptionValue v = current(row, &error);
    return !error.isEmpty() || v != normalized(spec, spec.defaultValue);
}

int OptionsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_specs.size());
}

int OptionsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OptionsModel::data(const QModelIndex &index, int role) const
{
    if (!isRow(index))
        return {};
    const int row = index.row();
    const OptionSpec &spec = m_specs[static_cast<std::size_t>(row)];
    const bool isBool = spec.kind == OptionSpec::Kind::Bool;

    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case KeyColumn: return qs(spec.key);
        case ValueColumn: {
            QString error;
            const OptionValue v = current(row, &error);
            if (!error.isEmpty()) // show what the user wrote, flagged by InvalidRole
                return qs(m_user.at(spec.key));
            return role == Qt::EditRole ? typed(v) : valueText(v);
        }
        case DefaultColumn: {
            const OptionValue v = normalized(spec, spec.defaultValue);
            return role == Qt::EditRole ? typed(v) : valueText(v);
        }
        case HelpColumn: return qs(spec.help);
        }
        return {};
    case Qt::CheckStateRole:
        if (isBool && index.column() == ValueColumn) {
            const OptionValue v = current(row);
            return std::get<bool>(v) ? Qt::Checked : Qt::Unchecked;
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = toolTip(spec);
        QString error;
        current(row, &error);
        if (!error.isEmpty())
            tip += QLatin1Char('\n') + error;
        return tip;
    }
    case KindRole: return static_cast<int>(spec.kind);
    case ModifiedRole: return isModified(row);
    case InvalidRole: {
        QString error;
        current(row, &error);
        return !error.isEmpty();
    }
    case ChoicesRole: {
        QStringList choices;
        for (const auto &c : spec.choices)
            choices << qs(c);
        return choices;
    }
    case MinimumRole: return spec.min;
    case MaximumRole: return spec.max;
    case KeyRole: return qs(spec.key);
    }
    return {};
}

bool OptionsModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!isRow(index) || index.column() != ValueColumn)
        return false;
    const OptionSpec &spec = m_specs[static_cast<std::size_t>(index.row())];
    QString text;
    if (role == Qt::CheckStateRole && spec.kind == OptionSpec::Kind::Bool)
        text = value.value<Qt::CheckState>() == Qt::Checked ? QStringLiteral("true") : QStringLiteral("false");
    else if (role == Qt::EditRole)
        text = editText(spec, value);
    else
        return false;
    return setOptionText(spec.key, text.toStdString());
}

QVariant OptionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn: return tr("Option");
    case ValueColumn: return tr("Value");
    case DefaultColumn: return tr("Default");
    case HelpColumn: return tr("Help");
    }
    return {};
}

Qt::ItemFlags OptionsModel::flags(const QModelIndex &index) const
{
    if (!isRow(index))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == ValueColumn) {
        if (m_specs[static_cast<std::size_t>(index.row())].kind == OptionSpec::Kind::Bool)
            f |= Qt::ItemIsUserCheckable;
        else
            f |= Qt::ItemIsEditable;
    }
    return f;
}

} // namespace tessera::views
