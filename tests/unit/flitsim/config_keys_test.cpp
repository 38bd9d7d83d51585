// flitsim's option table (Config::set, config_keys.cpp): every option is set by its CLI name,
// refuses what it does not take with the CLI's text, and the table is the only place the names,
// values and ranges are written (the CLI and the BookSim2 reader go through it).
#include <gtest/gtest.h>

#include <climits>
#include <set>
#include <string>

#include "ftroute/error.hpp"
#include "ftroute/flitsim.hpp"

using namespace ftroute;
using namespace ftroute::flitsim;

namespace {

std::string error_of(Config& c, const std::string& k, const std::string& v) {
  try {
    c.set(k, v);
  } catch (const OptionError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FlitsimConfigKeys, EveryKeyRefusesWhatItDoesNotTake) {
  std::set<std::string> names;
  for (const ConfigKey& k : config_keys()) {
    SCOPED_TRACE(k.name);
    EXPECT_TRUE(names.insert(k.name).second) << "option listed twice";
    Config c = Config::preset("booksim");  // every option is legal in some model: this one takes them all
    switch (k.kind) {
      case ConfigKey::Int:
        EXPECT_EQ(error_of(c, k.name, "x1"), "--" + k.name + " expects an integer, got 'x1'");
        if (k.hi < LONG_MAX) {
          EXPECT_EQ(error_of(c, k.name, std::to_string(k.hi + 1)),
                    "--" + k.name + " " + std::to_string(k.hi + 1) + " out of range (" + std::to_string(k.lo) + ".." +
                        std::to_string(k.hi) + ")");
        }
        EXPECT_EQ(error_of(c, k.name, std::to_string(k.hi)), "");
        break;
      case ConfigKey::Real:
        EXPECT_NE(error_of(c, k.name, "2"), "");
        EXPECT_EQ(error_of(c, k.name, "0.5"), "");
        break;
      case ConfigKey::Choice:
        EXPECT_EQ(error_of(c, k.name, "bogus"), "--" + k.name + " must be " + k.values_text);
        for (const std::string& v : k.values) EXPECT_EQ(error_of(c, k.name, v), "") << v;
        break;
      case ConfigKey::Flag:
        EXPECT_EQ(error_of(c, k.name, "no"), "--" + k.name + " is a flag (no value)");
        EXPECT_EQ(error_of(c, k.name, "true"), "");
        break;
    }
  }
  EXPECT_GE(names.size(), 30u);
  Config c;
  EXPECT_EQ(error_of(c, "no-such-option", "1"), "unknown flitsim option 'no-such-option'");
}

TEST(FlitsimConfigKeys, SetsTheFieldsAndKeepsTheModelRules) {
  Config c;
  c.set("allocator", "islip");
  EXPECT_EQ(c.allocator, Allocator::ISlip);
  c.set("fault-policy", "escape-hold");
  EXPECT_EQ(c.fault_policy, FaultPolicy::Escape);
  EXPECT_EQ(c.escape_fallback, FaultPolicy::Hold);
  c.set("lid-policy", "roundrobin");
  EXPECT_EQ(c.lid_policy, LidPolicy::RoundRobin);
  c.set("vcs", "4");
  EXPECT_EQ(c.num_vcs, 4);
  // the InfiniBand model: credit delay 0 and the BookSim-only options are refused, with the reason
  EXPECT_NE(error_of(c, "credit-delay", "0").find("needs --model booksim"), std::string::npos);
  EXPECT_EQ(error_of(c, "va-grants", "vc"), "--va-grants needs --model booksim");
  c.set("model", "booksim");
  EXPECT_EQ(c.model, RouterModel::BookSim);
  EXPECT_EQ(error_of(c, "credit-delay", "0"), "");
  EXPECT_EQ(c.credit_delay, 0);
  c.set("va-grants", "port");
  EXPECT_FALSE(c.va_per_vc);
}
