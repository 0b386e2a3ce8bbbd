// writable.h — opening a database for writing (internal to CXapian).

#ifndef CXAPIAN_ENGINE_WRITABLE_H
#define CXAPIAN_ENGINE_WRITABLE_H

#include <xapian.h>

#include <chrono>
#include <string>

namespace cxapian {

/// How long open_writable waits out a lock before it throws.
inline constexpr std::chrono::milliseconds lock_wait{2000};

/// Opens `path` for writing with Xapian's `flags`, waiting up to `wait` for its lock.
///
/// Xapian's lock is an open-file-description lock, and closing a writer only closes its descriptor: a child that
/// another thread forks (Foundation's Process, any posix_spawn) shares the description until its exec, and with it
/// the lock. So a database this process has just closed can be "already locked" for a moment, by nobody. Spotlite's
/// own writer lock keeps other Spotlite writers out, so a conflict is either that moment, which the wait outlasts,
/// or a foreign writer, whose DatabaseLockError is thrown when the wait is over.
Xapian::WritableDatabase open_writable(const std::string &path, int flags, int block_size = 0,
                                       std::chrono::milliseconds wait = lock_wait);

}  // namespace cxapian

#endif
