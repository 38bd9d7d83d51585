// Bad input (issue #19): every reader fails with a ParseError naming the file (and line) for
// empty files, /dev/null, directories, /dev/zero, /dev/urandom, binary data, endless lines, files
// over the size limit, and conflicting duplicate LID lines; it never runs out of memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "ftroute/error.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/lft_io.hpp"
#include "ftroute/netfile.hpp"

using namespace ftroute;
namespace fs = std::filesystem;

namespace {

const std::string kLft = std::string(FTROUTE_SOURCE_DIR) + "/tests/data/lft/";

std::string scratch(const std::string& name, const std::string& content) {
  fs::path d = fs::path(FTROUTE_BINARY_DIR) / "itest-scratch" / "bad_input_unit";
  fs::create_directories(d);
  fs::path p = d / name;
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

// Runs fn, expects a ParseError; returns it (file, line, what).
ParseError expect_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ParseError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ParseError: " << e.what();
    return ParseError("", 0, "");
  }
  ADD_FAILURE() << "no error";
  return ParseError("", 0, "");
}

bool has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

}  // namespace

// /dev/null when it is the real device (some sandboxes replace it by a regular file that other
// processes write into); an empty scratch file otherwise
std::string dev_null() {
  return fs::is_character_file("/dev/null") ? std::string("/dev/null") : scratch("empty", "");
}

TEST(BadInput, NetReaderRejectsNonFabrics) {
  const std::string null = dev_null();
  auto e = expect_error([&] { read_net_file(null); });
  EXPECT_EQ(e.file(), null);
  EXPECT_TRUE(has(e.what(), "empty file")) << e.what();
  e = expect_error([] { read_net_file(FTROUTE_SOURCE_DIR); });
  EXPECT_TRUE(has(e.what(), "is a directory")) << e.what();
  e = expect_error([] { read_net_file("/dev/zero"); });
  EXPECT_EQ(e.line(), 1);
  EXPECT_TRUE(has(e.what(), "binary data (byte 0x00")) << e.what();
  e = expect_error([] { read_net_file("/dev/urandom"); });
  EXPECT_GE(e.line(), 1);
  EXPECT_TRUE(has(e.what(), "/dev/urandom:")) << e.what();
  const std::string comments = scratch("comments.net", "# only a comment\n\nswitchguid=0x10\n");
  e = expect_error([&] { read_net_file(comments); });
  EXPECT_TRUE(has(e.what(), "no nodes")) << e.what();
  // also through the format sniffer every command uses
  e = expect_error([&] { read_fabric_file(null); });
  EXPECT_TRUE(has(e.what(), "empty file")) << e.what();
  e = expect_error([] { read_fabric_file("/dev/zero"); });
  EXPECT_TRUE(has(e.what(), "binary data")) << e.what();
  // a control character in the third line
  e = expect_error([] { parse_net("Switch 2 \"a\"\n[1] \"b\"[1]\n\x1b[31m\n", "esc.net"); });
  EXPECT_EQ(e.line(), 3);
}

TEST(BadInput, EndlessLineAndSizeLimit) {
  const std::string big = scratch("long.dump", std::string(10000, 'a'));
  auto e = expect_error([&] { read_lft_file(big); });
  EXPECT_EQ(e.line(), 1);
  EXPECT_TRUE(has(e.what(), "line longer than 4096")) << e.what();
  const std::string ok = kLft + "2sw4hca.opensm-lfts.dump";
  ::setenv("FTROUTE_MAX_INPUT_BYTES", "100", 1);
  e = expect_error([&] { read_lft_file(ok); });
  ::unsetenv("FTROUTE_MAX_INPUT_BYTES");
  EXPECT_TRUE(has(e.what(), "file too large")) << e.what();
  EXPECT_NO_THROW(read_lft_file(ok));
}

TEST(BadInput, TableReadersRejectNonText) {
  Fabric f = read_net_file(kLft + "2sw4hca.net");
  for (const std::string& p : {dev_null(), std::string("/dev/zero"), std::string("/dev/urandom")}) {
    EXPECT_TRUE(has(expect_error([&] { read_lft_file(p); }).what(), p));
    EXPECT_TRUE(has(expect_error([&] { read_path_sl(p, f); }).what(), p));
    EXPECT_TRUE(has(expect_error([&] { read_sl2vl(p, f); }).what(), p));
    EXPECT_TRUE(has(expect_error([&] { read_subnet_lst(p); }).what(), p));
  }
  EXPECT_TRUE(has(expect_error([] { read_lft_file(FTROUTE_SOURCE_DIR); }).what(), "is a directory"));
  const std::string comments = scratch("comments.dump", "# nothing\n");
  EXPECT_TRUE(has(expect_error([&] { read_lft_file(comments); }).what(), "no forwarding table"));
  auto e = expect_error([&] { parse_sl2vl("# x\n0x0000000000200000 1 2 0x00\x01 0 0 0 0 0 0 0\n", "s.sl2vl", f); });
  EXPECT_EQ(e.line(), 2);
  e = expect_error([&] { parse_path_sl(std::string("0x1 1 0\n\0\n", 10), "p.sl", f); });
  EXPECT_EQ(e.line(), 2);
}

TEST(BadInput, DuplicateLidInOneTable) {
  const std::string head = "Unicast lids [0-6] of switch Lid 2 guid 0x0000000000200000 ('Switch1'):\n";
  // conflicting: an error naming both lines
  auto e = expect_error([&] { parse_lft(head + "0x0001 001\n0x0002 000\n0x0001 003\n", "d.dump"); });
  EXPECT_EQ(e.line(), 4);
  EXPECT_TRUE(has(e.what(), "port 3 here and port 1 on line 2")) << e.what();
  // identical: a warning, carried into map_lfts' warnings
  LftFile f = parse_lft(head + "0x0001 001\n0x0001 001\n", "d.dump");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_TRUE(has(f.warnings[0], "d.dump:3: LID 0x0001 listed twice")) << f.warnings[0];
  // the same LID in two tables is normal
  EXPECT_NO_THROW(parse_lft(head + "0x0001 001\n" + head + "0x0001 002\n", "d.dump"));
}

TEST(BadInput, EscapeName) {
  EXPECT_EQ(escape_name("S0_00"), "S0_00");
  EXPECT_EQ(escape_name("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_TRUE(has_control_chars("x\x7f"));
  EXPECT_FALSE(has_control_chars("Switch1 \xc3\xa9"));
  // valid UTF-8 stays; bytes that are not UTF-8, C1 controls (U+009B: CSI), bidi overrides and
  // isolates, U+FFFE/U+FFFF go out as \xNN per byte
  EXPECT_EQ(escape_name("Switch1 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "Switch1 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(escape_name("a\xff" "b"), "a\\xffb");
  EXPECT_EQ(escape_name("a\xc3"), "a\\xc3");                      // cut off
  EXPECT_EQ(escape_name("\xc0\xaf"), "\\xc0\\xaf");               // overlong '/'
  EXPECT_EQ(escape_name("\xed\xa0\x80"), "\\xed\\xa0\\x80");      // a surrogate
  EXPECT_EQ(escape_name("\xc2\x9b" "2J"), "\\xc2\\x9b" "2J");
  EXPECT_EQ(escape_name("abc\xe2\x80\xae" "def"), "abc\\xe2\\x80\\xaedef");
  EXPECT_EQ(escape_name("\xe2\x81\xa6x"), "\\xe2\\x81\\xa6x");
  EXPECT_EQ(escape_name("\xef\xbf\xbf"), "\\xef\\xbf\\xbf");
  EXPECT_EQ(quote_name("a\"\xff"), "\"a\\\"\\xff\"");
  // JSON strings: only what is not UTF-8 (JSON escapes control characters itself)
  EXPECT_EQ(escape_invalid_utf8("a\tb\xc2\x9b\xe2\x80\xae\xff"), "a\tb\xc2\x9b\xe2\x80\xae\\xff");
  EXPECT_EQ(escape_invalid_utf8("S1"), "S1");
}

// ---- option ranges, plugin options (issue #19 item 3)

#include "adapter.hpp"
#include "ftroute/engine.hpp"
#include "ftroute/topology.hpp"

namespace {
std::string option_error(const std::string& engine, const std::string& opts) {
  try {
    EngineOptions::parse(opts).check_known(engine, make_engine(engine)->option_specs());
  } catch (const OptionError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(BadInput, EngineOptionRangesCheckedWhereParsed) {
  EXPECT_EQ(option_error("ftree-misroute", "max_valleys=0"), "option max_valleys=0 for engine 'ftree-misroute': must be 1..4096");
  EXPECT_TRUE(has(option_error("ftree-misroute", "max_valleys=-1"), "must be 1..4096"));
  EXPECT_EQ(option_error("ftree-misroute", "max_valleys=3"), "");
  EXPECT_TRUE(has(option_error("ft-dor", "max_vls=16"), "must be 1..15"));
  EXPECT_TRUE(has(option_error("ftdrb", "max_alternatives=128"), "must be 0..127"));
  EXPECT_TRUE(has(option_error("kns", "k=99999999999999999999"), "not an integer"));
  EXPECT_TRUE(has(option_error("kns", "max_in=3"), "must be 0..2"));
  EXPECT_TRUE(has(option_error("ft-minhop", "balance=maybe"), "not a boolean"));
  EXPECT_TRUE(has(option_error("dqr", "search_bound=2"), "not a boolean"));
  // every numeric option of every engine has a range: an absurd value is refused at parse time
  for (const auto& info : engines())
    for (const auto& spec : info.create()->option_specs())
      if (spec.kind == OptionSpec::Kind::Int) {
        EXPECT_NE(option_error(info.name, spec.name + "=99999999999"), "") << info.name << " " << spec.name;
      }
  // the plugin parses its options the same way (ERR FT03 at load time)
  auto po = plugin::PluginOptions::parse("ftree-misroute:max_valleys=0", engines());
  ASSERT_EQ(po.errors.size(), 1u);
  EXPECT_TRUE(has(po.errors[0], "must be 1..4096")) << po.errors[0];
}

TEST(BadInput, PluginLogOptionAndFallbackText) {
  auto po = plugin::PluginOptions::parse("log=\x7f", engines());
  EXPECT_EQ(po.log_path, "");
  ASSERT_EQ(po.errors.size(), 1u);
  EXPECT_TRUE(has(po.errors[0], "log='\\x7f'")) << po.errors[0];
  EXPECT_FALSE(has_control_chars(po.errors[0]));
  po = plugin::PluginOptions::parse("log=", engines());
  EXPECT_EQ(po.errors.size(), 1u);
  po = plugin::PluginOptions::parse("log=/tmp/ft.trace", engines());
  EXPECT_TRUE(po.errors.empty());
  EXPECT_EQ(po.log_path, "/tmp/ft.trace");

  // path_sl_dump=FILE: the same rules as log= (a name, no control characters)
  po = plugin::PluginOptions::parse("path_sl_dump=", engines());
  ASSERT_EQ(po.errors.size(), 1u);
  EXPECT_TRUE(has(po.errors[0], "path_sl_dump= needs a file name")) << po.errors[0];
  po = plugin::PluginOptions::parse("path_sl_dump=/tmp/a\x1b[2Jb", engines());
  EXPECT_EQ(po.path_sl_dump, "");
  ASSERT_EQ(po.errors.size(), 1u);
  EXPECT_FALSE(has_control_chars(po.errors[0])) << po.errors[0];
  po = plugin::PluginOptions::parse("path_sl_dump=/var/log/opensm-path-sl.txt log=/tmp/t", engines());
  EXPECT_TRUE(po.errors.empty());
  EXPECT_EQ(po.path_sl_dump, "/var/log/opensm-path-sl.txt");
  po = plugin::PluginOptions::parse("path_sl_dumps=/tmp/x", engines());
  ASSERT_EQ(po.errors.size(), 1u);
  EXPECT_TRUE(has(po.errors[0], "known: log, lid_matrices, path_sl_dump")) << po.errors[0];

  using plugin::fallback_text;
  EXPECT_EQ(fallback_text("ftree-misroute,updn", "ftree-misroute"), "OpenSM tries the next engine 'updn'");
  EXPECT_EQ(fallback_text("ftree-misroute", "ftree-misroute"), "OpenSM falls back to its built-in minhop");
  EXPECT_EQ(fallback_text("", "ftree-misroute"), "OpenSM falls back to its built-in minhop");
  EXPECT_TRUE(has(fallback_text("ftree-misroute,no_fallback", "ftree-misroute"), "no fallback"));
  EXPECT_TRUE(has(fallback_text("ft-minhop, ftree-misroute ,no_fallback", "ftree-misroute"), "no fallback"));
  EXPECT_EQ(fallback_text("ft-minhop,ftree-misroute,no_fallback", "ft-minhop"), "OpenSM tries the next engine 'ftree-misroute'");
}

TEST(BadInput, GeneratorLimitsBeforeBuilding) {
  auto msg = [](const std::function<void()>& fn) {
    try {
      fn();
    } catch (const OptionError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(msg([] { topo::fat_tree3(254, 0); }), "three-level fat tree: too large: 4177411 nodes, limit 200000");
  EXPECT_TRUE(has(msg([] { topo::fat_tree3(64, 0); }), "too large: 70656 LIDs needed"));
  topo::Grid g;
  g.dims = {300, 300};
  EXPECT_TRUE(has(msg([&] { topo::grid(g); }), "limit 49151 unicast LIDs"));
  EXPECT_NO_THROW(topo::check_generated_size("x", 1620, 11664));
  EXPECT_TRUE(has(msg([] { topo::check_generated_size("x", 10, 40000, 1, 1); }), "x 2^1"));
}
