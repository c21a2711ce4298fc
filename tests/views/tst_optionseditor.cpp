// The scheduler options editor as a user drives it: OptionsModel lists the
// real IOS scheduler's typed options with their defaults, an edit of r goes
// to the ScheduleController and replays the schedule (fewer DP transitions
// with r = 2 on three chains of three convolutions), an edit back to the default removes the key, out-of-range and
// unknown-choice edits are rejected with a message naming the key, switching
// to layer fusion reloads its (empty) option list, reset clears everything, and the
// delegate picks the editor per kind. Every model runs under
// QAbstractItemModelTester; the screenshot goes to
// <build>/screenshots/optionseditor.png.
#include "app/registerbuiltins.h"
#include "core/hw/deviceregistry.h"
#include "core/sched/scheduler.h"
#include "views/models/optionsmodel.h"
#include "views/widgets/optionseditor.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>

#include "tests/common/screenshots.h"
#include "tests/common/testgraphs.h"
#include "tests/views/controllertesting.h"

using namespace tessera;
using namespace tessera::views;
using tessera::gui::ScheduleController;

using OptionMap = std::map<std::string, std::string>;

namespace {

std::shared_ptr<const ScheduleRun> runOf(const QSignalSpy &spy)
{
    return spy.isEmpty() ? nullptr : spy.last().at(0).value<std::shared_ptr<const ScheduleRun>>();
}

// Runs `action` and waits for the controller's next finished run.
template <typename F>
std::shared_ptr<const ScheduleRun> runAfter(ScheduleController &c, F &&action, int timeoutMs = 20000)
{
    QSignalSpy spy(&c, &ScheduleController::finished);
    action();
    if (spy.isEmpty() && !spy.wait(timeoutMs))
        return nullptr;
    return runOf(spy);
}

// `n` branches of three chained convolutions from one input: r bounds the
// chain a group may take (ios thesis §3.4), so r = 2 prunes DP transitions.
Graph convBranches(int n)
{
    Graph g;
    g.name = "convbranches";
    const TensorId x = testgraphs::tensor(g, "x", {1, 16, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    for (int i = 0; i < n; ++i) {
        TensorId t = x;
        for (int j = 0; j < 3; ++j)
            t = testgraphs::conv28(g, "b" + std::to_string(i) + "c" + std::to_string(j), t, 16, 16, 3);
        g.outputs.push_back(t);
    }
    return g;
}

QModelIndex valueIndex(const OptionsModel &m, const std::string &key)
{
    return m.index(m.rowOfKey(key), OptionsModel::ValueColumn);
}

} // namespace

class TestOptionsEditor : public QObject
{
    Q_OBJECT

    SchedulerRegistry m_registry;
    Device m_device;
    std::shared_ptr<const Graph> m_graph;

    std::unique_ptr<ScheduleController> makeController(const QString &algorithm = QStringLiteral("ios"))
    {
        return testviews::makeController(m_registry, m_graph, m_device, algorithm);
    }
    static std::unique_ptr<QAbstractItemModelTester> tester(QAbstractItemModel *model)
    {
        return testviews::modelTester(model);
    }

private slots:
    void initTestCase()
    {
        registerBuiltinSchedulers(m_registry);
        auto device = DeviceRegistry::standard().lookup("nvidia-v100");
        QVERIFY2(device, device.status().str().c_str());
        m_device = *device;
        m_graph = std::make_shared<const Graph>(convBranches(3));
    }

    void modelListsEverySpecWithDefaults()
    {
        const auto &specs = m_registry.find("ios")->info().options;
        OptionsModel m;
        auto t = tester(&m);
        QSignalSpy changed(&m, &OptionsModel::userOptionsChanged);
        m.setSpecs(specs, {});
        QCOMPARE(m.rowCount(), int(specs.size()));
        QCOMPARE(m.columnCount(), int(OptionsModel::ColumnCount));
        QVERIFY(changed.isEmpty()); // setSpecs is not an edit
        for (int row = 0; row < m.rowCount(); ++row) {
            const OptionSpec &s = specs[std::size_t(row)];
            QCOMPARE(m.index(row, OptionsModel::KeyColumn).data().toString(), QString::fromStdString(s.key));
            QCOMPARE(m.index(row, OptionsModel::DefaultColumn).data().toString(),
                     QString::fromStdString(optionValueStr(s.defaultValue)));
            QCOMPARE(m.index(row, OptionsModel::ValueColumn).data().toString(),
                     QString::fromStdString(optionValueStr(s.defaultValue)));
            QCOMPARE(m.index(row, OptionsModel::HelpColumn).data().toString(), QString::fromStdString(s.help));
            for (int c = 0; c < OptionsModel::ColumnCount; ++c)
                QVERIFY(m.index(row, c).data(Qt::ToolTipRole).toString().startsWith(QString::fromStdString(s.help)));
            QVERIFY(!m.index(row, OptionsModel::ValueColumn).data(OptionsModel::ModifiedRole).toBool());
        }
        for (const char *key : {"r", "s", "strategy", "part_size"})
            QVERIFY2(m.rowOfKey(key) >= 0, key);
        // Typed edit role, range in the tool tip, only the value is editable.
        QCOMPARE(valueIndex(m, "r").data(Qt::EditRole).typeId(), int(QMetaType::LongLong));
        QCOMPARE(valueIndex(m, "r").data(Qt::EditRole).toLongLong(), 3);
        QCOMPARE(valueIndex(m, "strategy").data(Qt::EditRole).toString(), QStringLiteral("both"));
        QVERIFY(valueIndex(m, "r").data(Qt::ToolTipRole).toString().contains(QStringLiteral("range [1, 64]")));
        QVERIFY(valueIndex(m, "strategy")
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("merge, parallel, both")));
        QVERIFY(valueIndex(m, "r").flags() & Qt::ItemIsEditable);
        QVERIFY(!(m.index(0, OptionsModel::KeyColumn).flags() & Qt::ItemIsEditable));
        QCOMPARE(m.headerData(OptionsModel::HelpColumn, Qt::Horizontal).toString(), QStringLiteral("Help"));
    }

    void modelEditsAndRejects()
    {
        OptionsModel m;
        auto t = tester(&m);
        m.setSpecs(m_registry.find("ios")->info().options, {});
        QSignalSpy changed(&m, &OptionsModel::userOptionsChanged);
        QSignalSpy rejected(&m, &OptionsModel::editRejected);

        QVERIFY(m.setData(valueIndex(m, "r"), QVariant::fromValue(qlonglong(2))));
        QCOMPARE(m.userOptions(), (OptionMap{{"r", "2"}}));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.last().at(0).value<OptionMap>(), (OptionMap{{"r", "2"}}));
        QVERIFY(valueIndex(m, "r").data(OptionsModel::ModifiedRole).toBool());
        QCOMPARE(valueIndex(m, "r").data().toString(), QStringLiteral("2"));
        QVERIFY(m.lastError().isEmpty());

        QVERIFY(m.setData(valueIndex(m, "strategy"), QStringLiteral("merge")));
        QCOMPARE(m.userOptions(), (OptionMap{{"r", "2"}, {"strategy", "merge"}}));
        // Text goes through the same check; "0005" is stored as 5.
        QVERIFY(m.setData(valueIndex(m, "part_size"), QStringLiteral("0005")));
        QCOMPARE(m.userOptions().at("part_size"), std::string("5"));

        // Negative twins: out of range, unknown choice, not a number — nothing changes.
        const OptionMap before = m.userOptions();
        const int edits = int(changed.size());
        for (const auto &[key, value] :
             std::vector<std::pair<std::string, QVariant>>{{"r", QVariant::fromValue(qlonglong(0))},
                                                           {"r", QVariant::fromValue(qlonglong(1000))},
                                                           {"strategy", QStringLiteral("fast")},
                                                           {"s", QStringLiteral("many")}}) {
            QVERIFY(!m.setData(valueIndex(m, key), value));
            QVERIFY2(m.lastError().contains(QStringLiteral("option '%1'").arg(QString::fromStdString(key))),
                     qPrintable(m.lastError()));
            QCOMPARE(m.userOptions(), before);
        }
        QCOMPARE(int(changed.size()), edits);
        QCOMPARE(rejected.size(), 4);
        QVERIFY(m.lastError().contains(QStringLiteral("expects an integer")));
        QVERIFY(!m.setData(m.index(0, OptionsModel::KeyColumn), QStringLiteral("x"))); // not editable

        // Back to the default removes the key (and clears the last error).
        QVERIFY(m.setData(valueIndex(m, "r"), QVariant::fromValue(qlonglong(3))));
        QVERIFY(!m.userOptions().count("r"));
        QVERIFY(m.lastError().isEmpty());
        QVERIFY(!valueIndex(m, "r").data(OptionsModel::ModifiedRole).toBool());
        // Setting what is already there is accepted and not an edit.
        const int n = int(changed.size());
        QVERIFY(m.setData(valueIndex(m, "strategy"), QStringLiteral("merge")));
        QCOMPARE(int(changed.size()), n);

        m.resetToDefaults();
        QVERIFY(m.userOptions().empty());
        QCOMPARE(changed.last().at(0).value<OptionMap>(), OptionMap{});
    }

    void modelBoolDoubleAndStaleText()
    {
        using K = OptionSpec::Kind;
        const std::vector<OptionSpec> specs{
            {"verbose", K::Bool, false, "print more", -1e300, 1e300, {}},
            {"alpha", K::Double, std::int64_t{1}, "a weight", 0, 2, {}},
            {"label", K::String, std::string("x"), "free text", -1e300, 1e300, {}},
        };
        OptionsModel m;
        auto t = tester(&m);
        m.setSpecs(specs, {{"alpha", "lots"}}); // text from an old project that no longer parses
        QVERIFY(m.validate().contains(QStringLiteral("option 'alpha'")));
        QVERIFY(valueIndex(m, "alpha").data(OptionsModel::InvalidRole).toBool());
        QCOMPARE(valueIndex(m, "alpha").data().toString(), QStringLiteral("lots"));
        QCOMPARE(valueIndex(m, "alpha").data(OptionsModel::ModifiedRole).toBool(), true);

        const QModelIndex verbose = valueIndex(m, "verbose");
        QVERIFY(verbose.flags() & Qt::ItemIsUserCheckable);
        QVERIFY(!(verbose.flags() & Qt::ItemIsEditable));
        QCOMPARE(verbose.data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Unchecked);
        QVERIFY(m.setData(verbose, Qt::Checked, Qt::CheckStateRole));
        QCOMPARE(verbose.data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Checked);
        QCOMPARE(m.userOptions().at("verbose"), std::string("true"));

        QVERIFY(m.setData(valueIndex(m, "alpha"), 0.25));
        QCOMPARE(m.userOptions().at("alpha"), std::string("0.25"));
        QVERIFY(m.validate().isEmpty());
        QVERIFY(m.setData(valueIndex(m, "alpha"), 1.0)); // the default, declared as an integer
        QVERIFY(!m.userOptions().count("alpha"));
        QVERIFY(!m.setData(valueIndex(m, "alpha"), 2.5));
        QVERIFY(m.lastError().contains(QStringLiteral("option 'alpha' must be in [0, 2]")));

        QVERIFY(m.setData(valueIndex(m, "label"), QStringLiteral(" spaced ")));
        QCOMPARE(m.userOptions().at("label"), std::string(" spaced ")); // strings are kept as typed
    }

    void editorFollowsController()
    {
        auto c = makeController();
        const auto defaultRun = runAfter(*c, [&] { c->runNow(); });
        QVERIFY(defaultRun);
        OptionsEditor editor(c->state());
        auto t = tester(editor.model());
        QCOMPARE(editor.loadedScheduler(), QStringLiteral("ios"));
        QCOMPARE(editor.model()->rowCount(), int(m_registry.find("ios")->info().options.size()));
        QCOMPARE(editor.findChild<QLabel *>(QStringLiteral("optionsTitle"))->text(),
                 QStringLiteral("IOS (inter-operator scheduler)"));
        QVERIFY(editor.findChild<QLabel *>(QStringLiteral("optionsPaper"))->text().contains(QStringLiteral("§3.2")));
        QVERIFY(!editor.resetButton()->isEnabled());

        // An edit reaches the controller and replays; the view keeps its current cell.
        OptionsModel *m = editor.model();
        editor.view()->setCurrentIndex(valueIndex(*m, "r"));
        QSignalSpy resets(m, &QAbstractItemModel::modelReset);
        const auto r2 =
            runAfter(*c, [&] { QVERIFY(m->setData(valueIndex(*m, "r"), QVariant::fromValue(qlonglong(2)))); });
        QVERIFY(r2);
        QCOMPARE(c->options(), (OptionMap{{"r", "2"}}));
        QCOMPARE(m->userOptions(), (OptionMap{{"r", "2"}}));
        QVERIFY(resets.isEmpty());
        QCOMPARE(editor.view()->currentIndex(), valueIndex(*m, "r"));
        QVERIFY2(r2->result.stats.at("transitions") < defaultRun->result.stats.at("transitions"),
                 qPrintable(QStringLiteral("%1 vs %2")
                                .arg(r2->result.stats.at("transitions"))
                                .arg(defaultRun->result.stats.at("transitions"))));
        QVERIFY(editor.resetButton()->isEnabled());
        QVERIFY(editor.errorLabel()->isHidden());

        // Negative twin: a rejected edit shows its message and changes nothing.
        QSignalSpy setup(c.get(), &ScheduleController::setupChanged);
        QVERIFY(!m->setData(valueIndex(*m, "strategy"), QStringLiteral("fast")));
        QVERIFY(editor.errorLabel()->text().contains(QStringLiteral("option 'strategy' has no choice 'fast'")));
        QVERIFY(!editor.errorLabel()->isHidden());
        QCOMPARE(c->options(), (OptionMap{{"r", "2"}}));
        QVERIFY(setup.isEmpty());

        // Back to the default: the key goes, the error clears, the run matches the default.
        const auto r3 =
            runAfter(*c, [&] { QVERIFY(m->setData(valueIndex(*m, "r"), QVariant::fromValue(qlonglong(3)))); });
        QVERIFY(r3);
        QVERIFY(c->options().empty());
        QVERIFY(editor.errorLabel()->isHidden());
        QCOMPARE(r3->result.stats.at("transitions"), defaultRun->result.stats.at("transitions"));

        // Options set elsewhere (a project load) show up without a model reset.
        c->setOptions({{"s", "4"}});
        QCOMPARE(m->userOptions(), (OptionMap{{"s", "4"}}));
        QVERIFY(resets.isEmpty());
        QVERIFY(valueIndex(*m, "s").data(OptionsModel::ModifiedRole).toBool());

        // Reset clears everything, in the model and the controller.
        QTest::mouseClick(editor.resetButton(), Qt::LeftButton);
        QVERIFY(m->userOptions().empty());
        QVERIFY(c->options().empty());
        QVERIFY(!editor.resetButton()->isEnabled());

        // Another scheduler: its specs (layer fusion has none) and its header.
        c->setScheduler(QStringLiteral("layer-fusion"));
        QCOMPARE(editor.loadedScheduler(), QStringLiteral("layer-fusion"));
        QCOMPARE(m->rowCount(), 0);
        QCOMPARE(editor.findChild<QLabel *>(QStringLiteral("optionsTitle"))->text(),
                 QStringLiteral("Layer fusion (TVM-style)"));
        QVERIFY(editor.findChild<QLabel *>(QStringLiteral("optionsSummary"))
                    ->text()
                    .contains(QStringLiteral("no options")));
        // Stale keys from the previous scheduler are reported, and reset clears them.
        c->setOptions({{"r", "2"}});
        QVERIFY2(editor.errorLabel()->text().contains(QStringLiteral("unknown option 'r'")),
                 qPrintable(editor.errorLabel()->text()));
        QTest::mouseClick(editor.resetButton(), Qt::LeftButton);
        QVERIFY(c->options().empty());
        QVERIFY(editor.errorLabel()->isHidden());
        c->setScheduler(QStringLiteral("ios"));
        QCOMPARE(m->rowCount(), int(m_registry.find("ios")->info().options.size()));

        // Negative twin: a name the registry does not know.
        c->setScheduler(QStringLiteral("nope"));
        QCOMPARE(m->rowCount(), 0);
        QCOMPARE(editor.findChild<QLabel *>(QStringLiteral("optionsTitle"))->text(),
                 QStringLiteral("Unknown scheduler 'nope'"));
    }

    void controllerSignalsOnlyOnChange()
    {
        auto c = makeController();
        QSignalSpy setup(c.get(), &ScheduleController::setupChanged);
        c->setScheduler(QStringLiteral("ios"));
        c->setOptions({});
        QVERIFY(setup.isEmpty());
        c->setOptions({{"r", "2"}});
        c->setScheduler(QStringLiteral("greedy"));
        QCOMPARE(setup.size(), 2);
        c->cancel();
    }

    void delegateEditorPerKind()
    {
        auto c = makeController();
        c->setAutoRun(false);
        OptionsEditor editor(c->state());
        editor.resize(760, 320);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        OptionsModel *m = editor.model();
        QTableView *view = editor.view();

        view->setCurrentIndex(valueIndex(*m, "r"));
        view->edit(view->currentIndex());
        auto *spin = view->findChild<QSpinBox *>();
        QVERIFY(spin);
        QCOMPARE(spin->minimum(), 1);
        QCOMPARE(spin->maximum(), 64);
        QCOMPARE(spin->value(), 3);
        spin->setValue(5);
        view->setCurrentIndex(valueIndex(*m, "s")); // commits and closes
        QCOMPARE(c->options(), (OptionMap{{"r", "5"}}));

        view->setCurrentIndex(valueIndex(*m, "strategy"));
        view->edit(view->currentIndex());
        auto *combo = view->findChild<QComboBox *>();
        QVERIFY(combo);
        QCOMPARE(combo->count(), 3);
        QCOMPARE(combo->currentText(), QStringLiteral("both"));
        view->setCurrentIndex(valueIndex(*m, "r"));

        // max_transitions (up to 1e12) does not fit a spin box: a validated line edit.
        view->setCurrentIndex(valueIndex(*m, "max_transitions"));
        view->edit(view->currentIndex());
        auto *line = view->findChild<QLineEdit *>(QString(), Qt::FindDirectChildrenOnly);
        if (!line)
            for (QLineEdit *e : view->viewport()->findChildren<QLineEdit *>(QString(), Qt::FindDirectChildrenOnly))
                line = e;
        QVERIFY(line);
        QCOMPARE(line->text(), QStringLiteral("20000000"));
        line->setText(QStringLiteral("3000000000000")); // above 1e12: the model says so
        view->setCurrentIndex(valueIndex(*m, "r"));
        QVERIFY2(editor.errorLabel()->text().contains(QStringLiteral("option 'max_transitions' must be in")),
                 qPrintable(editor.errorLabel()->text()));
        QCOMPARE(c->options(), (OptionMap{{"r", "5"}}));
    }

    void screenshot()
    {
        auto c = makeController();
        c->setAutoRun(false);
        OptionsEditor editor(c->state());
        editor.resize(760, 270);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        OptionsModel *m = editor.model();
        QVERIFY(m->setData(valueIndex(*m, "r"), QVariant::fromValue(qlonglong(2))));
        QVERIFY(m->setData(valueIndex(*m, "strategy"), QStringLiteral("parallel")));
        QVERIFY(!m->setData(valueIndex(*m, "s"), QVariant::fromValue(qlonglong(0))));
        editor.view()->setCurrentIndex(valueIndex(*m, "r"));
        QCOMPARE(c->options(), (OptionMap{{"r", "2"}, {"strategy", "parallel"}}));
        QTest::qWait(50);
        QVERIFY(editor.grab().save(testshots::screenshotPath(QStringLiteral("optionseditor.png"))));
    }
};

QTEST_MAIN(TestOptionsEditor)
#include "tst_optionseditor.moc"
