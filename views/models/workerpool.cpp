#include "views/models/workerpool.h"

#include <QThreadPool>

namespace tessera::views {

QThreadPool *workerPool()
{
    static QThreadPool pool;
    return &pool;
}

} // namespace tessera::views
