// a plugin's workbench part uses its plugin and core
#include "plugins/bar/bar.h"
#include "core/plan/plan.h"
