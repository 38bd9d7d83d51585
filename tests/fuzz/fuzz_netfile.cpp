// libFuzzer target: the .net / ibnetdiscover reader (parse_net) and the subnet.lst reader.
#include "fuzz_common.hpp"
#include "ftroute/ibdmchk_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view t = fuzz::text(data, size);
  fuzz::guarded([&] {
    ftroute::Fabric f = ftroute::parse_net(t, "fuzz.net");
    ftroute::write_net(f);  // whatever was accepted can be written back
  });
  fuzz::guarded([&] { ftroute::parse_subnet_lst(t, "fuzz.lst"); });
  return 0;
}
