// writable_tests.cpp — opening a database for writing: a lock a forked child still shares is waited out, a lock a
// writer holds is reported.

#include "fixture.h"
#include "writable.h"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

using namespace engine_tests;

TEST_CASE("a database just closed while a forked child shares its lock opens once the child lets go") {
    TempIndex index;
    index.add({"leaking tap", "the washer is worn"});
    index.commit();
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // What a child of Process or posix_spawn does between its fork and its exec: holds what it inherited.
        ::usleep(500 * 1000);
        ::_exit(0);
    }
    index.writable().close();
    // The hazard itself: Xapian's own open fails while the child lives.
    CHECK_THROWS_AS(Xapian::WritableDatabase(index.path(), Xapian::DB_OPEN), Xapian::DatabaseLockError);
    Xapian::WritableDatabase reopened = cxapian::open_writable(index.path(), Xapian::DB_OPEN);
    CHECK(reopened.get_doccount() == 1);
    int status = 0;
    ::waitpid(child, &status, 0);
    CHECK(WIFEXITED(status));
}

TEST_CASE("a database a writer holds is reported locked when the wait is over") {
    TempIndex index;
    CHECK_THROWS_AS(cxapian::open_writable(index.path(), Xapian::DB_OPEN, 0, std::chrono::milliseconds{50}),
                    Xapian::DatabaseLockError);
}
