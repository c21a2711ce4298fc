#include "plugins/foo/foo.h"
#include "views/widgets/view.h"
