// libFuzzer target: the path-SL reader (ibdmchk -c format) and its lookup.
#include "fuzz_common.hpp"
#include "ftroute/ibdmchk_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::guarded([&] {
    auto sl = ftroute::parse_path_sl(fuzz::text(data, size), "fuzz.sl", fuzz::fabric());
    for (ftroute::Lid s = 0; s <= 8; s++)
      for (ftroute::Lid d = 0; d <= 8; d++) sl(s, d);
  });
  return 0;
}
