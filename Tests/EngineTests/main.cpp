// main.cpp — the engine's C++ tests (doctest): the parts of Sources/CXapian/engine called directly, on real Xapian
// databases. `make test-engine` builds and runs them, with AddressSanitizer and UndefinedBehaviorSanitizer.

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
