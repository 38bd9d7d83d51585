// libFuzzer target: both LFT dump readers (OpenSM's opensm-lfts.dump and dump_fts/ibroute
// output), then LID adoption and the mapping onto a fabric, and the writer.
#include "fuzz_common.hpp"
#include "ftroute/lft_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view t = fuzz::text(data, size);
  for (auto fmt : {ftroute::LftFormat::Auto, ftroute::LftFormat::Opensm, ftroute::LftFormat::DumpFts}) {
    fuzz::guarded([&] {
      ftroute::LftFile file = ftroute::parse_lft(t, "fuzz.dump", fmt);
      ftroute::write_lft_file(file);
      ftroute::map_lfts(file, fuzz::fabric());
      ftroute::Fabric g = fuzz::fabric();
      if (ftroute::adopt_lids(file, g) > 0) ftroute::map_lfts(file, g);
    });
  }
  return 0;
}
