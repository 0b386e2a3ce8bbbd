// writable.cpp — opening a database for writing, waiting out a lock held for a moment (see writable.h).

#include "writable.h"

#include <thread>

namespace cxapian {

Xapian::WritableDatabase open_writable(const std::string &path, int flags, int block_size,
                                       std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    std::chrono::milliseconds pause{1};
    for (;;) {
        try {
            return Xapian::WritableDatabase(path, flags, block_size);
        } catch (const Xapian::DatabaseLockError &) {
            const auto now = std::chrono::steady_clock::now();
            if (now >= deadline) throw;
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
            pause = std::min(pause * 2, std::chrono::milliseconds{100});
        }
    }
}

}  // namespace cxapian
