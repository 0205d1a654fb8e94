// Compiled by CompileFail.cmake with -DCASE=N; every case but 0 must fail to
// compile with tgc's "cannot be an argument of a traced function" message.
#include "tgc/TraceTraits.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

struct NoTraits {};
struct WrongHook {};
int tgcTraceType(const WrongHook &) { return 0; } // Not a TraceType.

using tgc::tracing::traceTypeOf;
using tgc::tracing::traceTypeOfArgs;

void use() {
#if CASE == 0
  (void)traceTypeOf(
      std::map<std::string, std::vector<std::tuple<int, float>>>{});
  (void)traceTypeOfArgs(1, 2.0, "x");
#elif CASE == 1
  (void)traceTypeOf(NoTraits{});
#elif CASE == 2
  (void)traceTypeOf(std::vector<NoTraits>{});
#elif CASE == 3
  (void)traceTypeOf(
      std::map<std::string, std::tuple<int, std::optional<NoTraits>>>{});
#elif CASE == 4
  (void)traceTypeOf(WrongHook{});
#elif CASE == 5
  (void)traceTypeOf(std::pair<int, long double>{});
#elif CASE == 6
  (void)traceTypeOfArgs(1, NoTraits{});
#endif
}
