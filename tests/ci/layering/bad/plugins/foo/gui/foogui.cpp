#include "plugins/foo/foo.h"
#include "plugins/bar/bar.h"
