// libFuzzer target: the SL2VL reader (ibdmchk -d format and OpenSM's opensm-sl2vl.dump).
#include "fuzz_common.hpp"
#include "ftroute/ibdmchk_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::guarded([&] {
    ftroute::Sl2Vl t = ftroute::parse_sl2vl(fuzz::text(data, size), "fuzz.sl2vl", fuzz::fabric());
    ftroute::write_sl2vl(fuzz::fabric(), t);
  });
  return 0;
}
