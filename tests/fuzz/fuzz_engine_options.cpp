// libFuzzer target: the engine option parser (CLI --opt and the plugin's event_plugin_options):
// EngineOptions::parse, the key/range check of every engine, typed getters, PluginOptions::parse.
#include "adapter.hpp"
#include "fuzz_common.hpp"
#include "ftroute/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string s(fuzz::text(data, size));
  fuzz::guarded([&] {
    ftroute::EngineOptions o = ftroute::EngineOptions::parse(s);
    for (const auto& info : ftroute::engines())
      fuzz::guarded([&] { o.check_known(info.name, info.create()->option_specs()); });
    for (const auto& kv : o.all()) {
      const std::string& k = kv.first;
      fuzz::guarded([&] { o.get_int(k, 0); });
      fuzz::guarded([&] { o.get_double(k, 0); });
      fuzz::guarded([&] { o.get_bool(k, false); });
    }
    o.with_prefix("base");
  });
  fuzz::guarded([&] {
    auto po = ftroute::plugin::PluginOptions::parse(s, ftroute::engines());
    for (const auto& [name, opts] : po.engine) po.for_engine(name);
    ftroute::plugin::fallback_text(s, "ftree-misroute");
  });
  return 0;
}
