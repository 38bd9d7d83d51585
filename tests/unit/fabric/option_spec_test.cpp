// Engine options as data (issue #28 item 3): every registered engine's OptionSpecs are well
// formed, Engine::check_options enforces each spec's kind and range, and `ftroute engines --json`
// lists exactly the specs; one [ENGINE:]k=v syntax for engine options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "ftroute/engine.hpp"
#include "ftroute/engine_option_text.hpp"
#include "ftroute/registry.hpp"

using namespace ftroute;

namespace {
// The error of the engine's option check with key=value and its other required options given.
std::string check_error(const Engine& e, const std::string& key, const std::string& value) {
  EngineOptions o;
  for (const auto& s : e.option_specs())
    if (s.required) o.set(s.name, "given");
  o.set(key, value);
  try {
    e.check_options(o);
  } catch (const OptionError& x) {
    return x.what();
  }
  return "";
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << cmd;
  return out;
}
}  // namespace

TEST(OptionSpec, EveryEngineDeclaresWellFormedSpecs) {
  ASSERT_GE(engines().size(), 8u);
  for (const auto& info : engines()) {
    const auto specs = info.create()->option_specs();
    std::set<std::string> names;
    for (const auto& s : specs) {
      SCOPED_TRACE(info.name + " " + s.name);
      EXPECT_FALSE(s.name.empty());
      EXPECT_TRUE(names.insert(s.name).second) << "declared twice";
      EXPECT_FALSE(s.doc.empty()) << "no doc";
      EXPECT_EQ(s.doc.find('\n'), std::string::npos) << "doc is one line";
      EngineOptions d;  // the default, where there is one, is a value the spec accepts
      if (!s.def.empty()) d.set(s.name, s.def);
      switch (s.kind) {
        case OptionSpec::Kind::Int:
          EXPECT_LE(s.lo, s.hi);
          if (!s.def.empty()) {
            const long v = d.get_int(s.name, s.lo - 1);
            EXPECT_GE(v, s.lo);
            EXPECT_LE(v, s.hi);
          }
          break;
        case OptionSpec::Kind::Bool:
          if (!s.def.empty()) {
            EXPECT_NO_THROW(d.get_bool(s.name, false));
          }
          break;
        case OptionSpec::Kind::Prefix:
          EXPECT_TRUE(s.name.size() > 2 && s.name.ends_with(".*"));
          EXPECT_TRUE(s.def.empty());
          break;
        case OptionSpec::Kind::Text:
          EXPECT_EQ(s.name.find('*'), std::string::npos);
          break;
        case OptionSpec::Kind::Choice:
          EXPECT_GE(s.values.size(), 2u) << "a choice of one";
          EXPECT_FALSE(s.def.empty()) << "a choice without a default";
          EXPECT_NE(std::find(s.values.begin(), s.values.end(), s.def), s.values.end()) << "default not a value";
          break;
      }
      EXPECT_EQ(check_error(*info.create(), s.name, s.def.empty() ? "x" : s.def).find("unknown option"), std::string::npos);
    }
  }
}

TEST(OptionSpec, CheckOptionsEnforcesEverySpec) {
  for (const auto& info : engines()) {
    const auto eng = info.create();
    for (const auto& s : eng->option_specs()) {
      SCOPED_TRACE(info.name + " " + s.name);
      const std::string what = "option " + s.name + "=";
      switch (s.kind) {
        case OptionSpec::Kind::Int:
          EXPECT_EQ(check_error(*eng, s.name, std::to_string(s.lo)), "");
          EXPECT_EQ(check_error(*eng, s.name, std::to_string(s.hi)), "");
          EXPECT_EQ(check_error(*eng, s.name, std::to_string(s.lo - 1)),
                    what + std::to_string(s.lo - 1) + " for engine '" + info.name + "': must be " + s.range());
          EXPECT_EQ(check_error(*eng, s.name, std::to_string(s.hi + 1)),
                    what + std::to_string(s.hi + 1) + " for engine '" + info.name + "': must be " + s.range());
          EXPECT_NE(check_error(*eng, s.name, "ten").find("not an integer (" + s.range() + ")"), std::string::npos);
          break;
        case OptionSpec::Kind::Bool:
          EXPECT_EQ(check_error(*eng, s.name, "true"), "");
          EXPECT_EQ(check_error(*eng, s.name, "off"), "");
          EXPECT_NE(check_error(*eng, s.name, "maybe").find("is not a boolean"), std::string::npos);
          break;
        case OptionSpec::Kind::Prefix: {
          const std::string p = s.name.substr(0, s.name.size() - 1);  // "base."
          EXPECT_EQ(check_error(*eng, p + "anything", "1"), "");
          EXPECT_NE(check_error(*eng, p, "1"), "");  // "base." alone names nothing
          break;
        }
        case OptionSpec::Kind::Text:
          EXPECT_EQ(check_error(*eng, s.name, "some-value"), "");
          if (s.required) {
            EXPECT_EQ(check_error(*eng, s.name, ""),
                      "engine '" + info.name + "' needs option " + s.name + "=VALUE (" + s.doc + ")");
            EXPECT_TRUE(s.def.empty()) << "a required option with a default";
          }
          break;
        case OptionSpec::Kind::Choice:
          for (const auto& v : s.values) EXPECT_EQ(check_error(*eng, s.name, v), "") << v;
          EXPECT_EQ(check_error(*eng, s.name, "some-value"),
                    what + "some-value for engine '" + info.name + "': must be " + s.range());
          break;
      }
    }
    EXPECT_NE(check_error(*eng, "no_such_option", "1").find("unknown option 'no_such_option' for engine '" + info.name + "'"),
              std::string::npos);
  }
}

TEST(OptionSpec, TypedGettersUseTheSpecDefault) {
  const OptionSpec n = OptionSpec::integer("n", 1, 15, "8", "n"), b = OptionSpec::boolean("b", "true", "b"),
                   t = OptionSpec::text("t", "local", "t"), none = OptionSpec::integer("m", 0, 9, "", "m");
  EngineOptions o;
  EXPECT_EQ(o.get_int(n), 8);
  EXPECT_TRUE(o.get_bool(b));
  EXPECT_EQ(o.get(t), "local");
  o.set("n", "3");
  o.set("b", "no");
  o.set("t", "e2e");
  EXPECT_EQ(o.get_int(n), 3);
  EXPECT_FALSE(o.get_bool(b));
  EXPECT_EQ(o.get(t), "e2e");
  EXPECT_THROW(o.get_int(none), std::logic_error);  // no default: the engine decides with has()
  EXPECT_THROW(o.get_bool(n), std::logic_error);    // read as another kind than declared
  EXPECT_THROW(find_option_spec({n, b}, "x"), std::logic_error);
  // a Choice reads as text, lists its values as its range and refuses any other where the
  // options are checked
  const OptionSpec c = OptionSpec::choice("c", {"local", "e2e"}, "local", "c");
  EngineOptions oc;
  EXPECT_EQ(oc.get(c), "local");
  EXPECT_EQ(c.range(), "local|e2e");
  oc.set("c", "e2e");
  EXPECT_EQ(oc.get(c), "e2e");
  EXPECT_NO_THROW(oc.check_known("x", {c}));
  oc.set("c", "far");
  try {
    oc.check_known("x", {c});
    FAIL() << "c=far accepted";
  } catch (const OptionError& e) {
    EXPECT_EQ(std::string(e.what()), "option c=far for engine 'x': must be local|e2e");
  }
  EXPECT_THROW(oc.get_bool(c), std::logic_error);
}

TEST(OptionSpec, EnginesJsonListsExactlyTheSpecs) {
  const auto j = nlohmann::json::parse(run(std::string(FTROUTE_BINARY_DIR) + "/cli/ftroute engines --json"));
  ASSERT_EQ(j["engines"].size(), engines().size());
  for (const auto& info : engines()) {
    SCOPED_TRACE(info.name);
    const nlohmann::json* e = nullptr;
    for (const auto& x : j["engines"])
      if (x["name"] == info.name) e = &x;
    ASSERT_NE(e, nullptr);
    const auto specs = info.create()->option_specs();
    const auto& opts = (*e)["options"];
    ASSERT_EQ(opts.size(), specs.size());
    for (size_t i = 0; i < specs.size(); i++) {
      const auto& s = specs[i];
      const auto& o = opts[i];
      EXPECT_EQ(o["key"], s.name);
      EXPECT_EQ(o["meaning"], s.doc);
      if (s.def.empty()) {
        EXPECT_TRUE(o["default"].is_null()) << s.name;
      } else {
        EXPECT_EQ(o["default"], s.def);
      }
      if (s.range().empty()) {
        EXPECT_TRUE(o["range"].is_null()) << s.name;
      } else {
        EXPECT_EQ(o["range"], s.range());
      }
    }
  }
}

// One syntax for engine options, "[ENGINE:]k=v[,k=v]" (engine_option_text.hpp): the CLI's --opt
// and the plugin's event_plugin_options tokens.
TEST(OptionSpec, EngineOptionTextOneSyntax) {
  EXPECT_EQ(split_engine_option("ft-lash:max_vls=4,check=0"), std::make_pair(std::string("ft-lash"), std::string("max_vls=4,check=0")));
  EXPECT_EQ(split_engine_option("file=/a:b"), std::nullopt);  // ':' after the first '=': a value
  EXPECT_EQ(split_engine_option("max_vls=4"), std::nullopt);
  const std::vector<std::string> texts = {"max_vls=3", "ft-lash:max_vls=4,check=0", "kns:max_in=1", "ft-lash:check=1"};
  const EngineOptions lash = engine_options_for("ft-lash", texts);
  EXPECT_EQ(lash.get("max_vls", ""), "4");  // later texts win
  EXPECT_EQ(lash.get("check", ""), "1");
  EXPECT_FALSE(lash.has("max_in"));
  EXPECT_EQ(engine_options_for("kns", texts).get("max_in", ""), "1");
  EXPECT_EQ(engine_options_for("kns", texts).get("max_vls", ""), "3");
  EXPECT_THROW(engine_options_for("ft-lash", texts, true), OptionError);  // kns:... with one engine
  EXPECT_NO_THROW(engine_options_for("ft-lash", {"max_vls=3", "ft-lash:check=0"}, true));
  EXPECT_THROW(engine_options_for("ft-lash", {"ft-lash:novalue"}), OptionError);
}
