// OptionsModel: a scheduler's typed options (SchedulerInfo::options,
// core/sched/options.h) next to the option text the user set — one row per
// OptionSpec with its key, current value, default and one-line help (the help
// is also the tool tip of every column). Only the Value column is editable;
// a Bool value is a checkable item.
//
// The user map holds only the keys the user set, as ScheduleController::options()
// does. An edit is validated with OptionValues::resolve() on that one value: a
// rejected edit returns false, changes nothing and leaves its message in
// lastError() (and editRejected()); an edit back to the default removes the
// key. Accepted edits that change the map, and resetToDefaults(), emit
// userOptionsChanged(); setSpecs() and setUserOptions() do not.
//
// Qt Core only: emphasis (bold for a value that differs from the default, red
// for stored text that does not parse) is exposed as roles for the view's
// delegate. Checked with QAbstractItemModelTester.
#pragma once

#include "core/sched/options.h"

#include <QAbstractTableModel>
#include <QString>

#include <map>
#include <string>
#include <vector>

namespace tessera::views {

class OptionsModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { KeyColumn, ValueColumn, DefaultColumn, HelpColumn, ColumnCount };
    static constexpr int KindRole = Qt::UserRole + 1;     // int: OptionSpec::Kind
    static constexpr int ModifiedRole = Qt::UserRole + 2; // bool: set, and differs from the default
    static constexpr int InvalidRole = Qt::UserRole + 3;  // bool: the stored text does not parse
    static constexpr int ChoicesRole = Qt::UserRole + 4;  // QStringList: Enum choices
    static constexpr int MinimumRole = Qt::UserRole + 5;  // double: OptionSpec::min
    static constexpr int MaximumRole = Qt::UserRole + 6;  // double: OptionSpec::max
    static constexpr int KeyRole = Qt::UserRole + 7;      // QString: the option key, any column

    explicit OptionsModel(QObject *parent = nullptr);

    // Shows `specs` with the user's text `user` (keys the user set). Resets the
    // model and lastError(); does not emit userOptionsChanged().
    void setSpecs(std::vector<OptionSpec> specs, std::map<std::string, std::string> user);
    // Replaces only the user's text (same specs): rows keep their selection.
    // Does not emit userOptionsChanged().
    void setUserOptions(std::map<std::string, std::string> user);
    const std::vector<OptionSpec> &specs() const { return m_specs; }
    const std::map<std::string, std::string> &userOptions() const { return m_user; }
    // Clears the user's text; emits userOptionsChanged() when there was any.
    void resetToDefaults();

    // Sets one option from text, as setData() on the Value column does.
    bool setOptionText(const std::string &key, const std::string &text);
    // The message of the last rejected edit; empty after an accepted one.
    const QString &lastError() const { return m_lastError; }
    // The user's map as a whole against the specs (e.g. keys of another
    // scheduler); an empty string when it resolves.
    QString validate() const;
    int rowOfKey(const std::string &key) const; // -1 if absent

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

signals:
    void userOptionsChanged(const std::map<std::string, std::string> &options);
    void editRejected(const QString &message);

private:
    // The typed value of row `row`: the user's text parsed, else the default;
    // `error` receives the parse message when the text does not parse.
    OptionValue current(int row, QString *error = nullptr) const;
    bool isModified(int row) const;
    bool isRow(const QModelIndex &index) const;
    void reject(const QString &message);

    std::vector<OptionSpec> m_specs;
    std::map<std::string, std::string> m_user;
    QString m_lastError;
};

} // namespace tessera::views
