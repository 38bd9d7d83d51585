// .net reader (the full parser; its fast path is netfile_fast.cpp, the writer netfile_write.cpp). See
// netfile.hpp for the format and the documented differences from ibsim.
// Written from the format description and from observing ibsim 0.10 / ibnetdiscover; the
// behaviour mirrored from ibsim's sim_net.c is noted where it matters (GUID counters, record
// structure, where LIDs and widths are taken from).
#include "ftroute/netfile.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "netfile_common.hpp"

namespace ftroute {
namespace {

constexpr size_t kMaxReadLine = 4096;  // lines kept in memory at all (check_len reports > kMaxLineLen)
constexpr int kMaxIncludeDepth = 8;  // ibsim MAX_INCLUDE is 9 levels including the top file

using namespace netfile_detail;

NodeType type_of(TypeIdx t) { return t == kSw ? NodeType::Switch : t == kCa ? NodeType::Ca : NodeType::Router; }

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'; }
// A terminal session log's header or trailer: PuTTY's (a line of "=~" pairs, " PuTTY log ", a
// date, "=~" pairs again) and
// script(1)'s first and last lines ("Script started on DATE [...]", "Script done on ...").
bool is_terminal_banner(std::string_view s) {
  return (s.substr(0, 8) == "=~=~=~=~" && s.find(" PuTTY log ") != std::string_view::npos) ||
         s.substr(0, 18) == "Script started on " || s.substr(0, 15) == "Script done on ";
}
// A node record's header line: its type and the length of its keyword (Switch, Hca, Ca, Rt).
std::optional<std::pair<TypeIdx, size_t>> record_start(std::string_view l) {
  if (starts_with(l, "Switch")) return std::pair{kSw, size_t{6}};
  if (starts_with(l, "Hca")) return std::pair{kCa, size_t{3}};
  if (starts_with(l, "Ca")) return std::pair{kCa, size_t{2}};
  if (starts_with(l, "Rt")) return std::pair{kRt, size_t{2}};
  return std::nullopt;
}
bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return is_space(c); });
}
void skip_ws(std::string_view s, size_t& pos) {
  while (pos < s.size() && is_space(s[pos])) pos++;
}


struct Decl {  // one port line
  int node;
  int port;
  std::string remote;
  int rport;
  const std::string* file;
  int line;
};

struct LidDecl {
  int node;
  int port;
  uint64_t lid;
  uint64_t lmc;
  const std::string* file;
  int line;
};

class Parser {
 public:
  explicit Parser(const NetReadOptions& o) : opt_(o) {}
  Fabric build(std::string_view text, const std::string& filename) {
    std::error_code ec;
    auto canon = std::filesystem::weakly_canonical(filename, ec);
    stack_.push_back(ec ? filename : canon.string());
    parse_text(text, filename);
    if (f_.size() == 0) fail(filename, 0, "no nodes: not a fabric (empty, or only comments and directives)");
    finish();
    if (!shared_.empty()) warn_shared();
    if (unassigned_) warn_unassigned();
    return std::move(f_);
  }

 private:
  [[noreturn]] void fail(const std::string& file, int line, const std::string& msg) const {
    throw ParseError(file, line, msg);
  }

  // Unsigned number as strtoull(base 0) reads it; `pos` advances past it. Throws if no digits.
  uint64_t number(std::string_view s, size_t& pos, const std::string& file, int line, const char* what) const {
    size_t start = pos;
    std::string tmp(s.substr(pos));
    if (tmp.empty() || !std::isdigit(static_cast<unsigned char>(tmp[0])))
      fail(file, line, std::string("bad ") + what + ": expected a number, got '" + std::string(s.substr(start)) + "'");
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(tmp.c_str(), &end, 0);
    if (errno == ERANGE) fail(file, line, std::string("bad ") + what + ": number too large");
    pos += static_cast<size_t>(end - tmp.c_str());
    if (pos < s.size() && std::isalnum(static_cast<unsigned char>(s[pos])))
      fail(file, line, std::string("bad ") + what + ": '" + std::string(s.substr(start)) + "' is not a number");
    return v;
  }

  // Allows only blanks, an optional "(hex)" and an optional '#' comment after a value.
  void trailer(std::string_view s, size_t pos, const std::string& file, int line, bool allow_paren) const {
    skip_ws(s, pos);
    if (allow_paren && pos < s.size() && s[pos] == '(') {
      size_t close = s.find(')', pos);
      if (close == std::string_view::npos) fail(file, line, "unterminated '(' in '" + std::string(s) + "'");
      pos = close + 1;
      skip_ws(s, pos);
    }
    if (pos < s.size() && s[pos] != '#')
      fail(file, line, "unexpected text '" + std::string(s.substr(pos)) + "'");
  }

  std::string quoted(std::string_view s, size_t& pos, const std::string& file, int line, const char* what) const {
    if (pos >= s.size() || s[pos] != '"') fail(file, line, std::string("expected a quoted ") + what);
    size_t close = s.find('"', pos + 1);
    if (close == std::string_view::npos) fail(file, line, std::string("unterminated quoted ") + what);
    std::string r(s.substr(pos + 1, close - pos - 1));
    pos = close + 1;
    return r;
  }

  void check_id(const std::string& id, const std::string& file, int line) const {
    if (id.empty()) fail(file, line, "empty node id");
    if (id.find_first_of("#@") != std::string::npos)
      fail(file, line, "bad node id \"" + id + "\": '#' and '@' are reserved by ibsim");
    if (id.size() > kMaxIdLen)
      fail(file, line, "node id \"" + id + "\" is longer than " + std::to_string(kMaxIdLen) + " characters (ibsim truncates it)");
  }

  void parse_text(std::string_view text, const std::string& file) {
    files_.push_back(std::make_unique<std::string>(file));
    const std::string& fname = *files_.back();
    check_input_text(text, fname, kMaxReadLine);  // binary data, absurd lines: before anything else
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) {
        if (start < text.size()) lines.push_back(text.substr(start));
        break;
      }
      lines.push_back(text.substr(start, nl - start));
      start = nl + 1;
    }
    for (auto& l : lines)
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    // a UTF-8 byte-order mark (a dump saved by a Windows editor) is not part of the first line
    if (!lines.empty() && starts_with(lines[0], "\xef\xbb\xbf")) {
      lines[0].remove_prefix(3);
      warn(fname + ":1: a UTF-8 byte-order mark, skipped");
    }

    // A terminal session log (PuTTY's log header, script(1)'s "Script started on" line) may hold
    // console text around the dump: skipped before the first node record and after the last.
    bool capture = false;
    size_t first_record = lines.size(), last_record = 0;
    for (size_t k = 0; k < lines.size(); k++) {
      const std::string_view l = lines[k];
      if (is_terminal_banner(l)) capture = true;
      if (record_start(l)) {
        first_record = std::min(first_record, k);
        last_record = k;
      }
    }
    size_t i = 0;
    while (i < lines.size()) {
      std::string_view l = lines[i];
      const int ln = static_cast<int>(i) + 1;
      check_len(l, fname, ln);
      if (const auto rs = record_start(l)) {
        i = record(lines, i, rs->first, rs->second, fname);
        continue;
      }
      if (starts_with(l, "switchguid")) guid_base(l, kSw, fname, ln);
      else if (starts_with(l, "hcaguids") || starts_with(l, "caguid")) guid_base(l, kCa, fname, ln);
      else if (starts_with(l, "rtguid")) guid_base(l, kRt, fname, ln);
      else if (starts_with(l, "vendid") || starts_with(l, "devid") || starts_with(l, "sysimgguid") ||
               starts_with(l, "pdebug"))
        assignment(l, fname, ln, "value");
      else if (starts_with(l, "width")) {
        uint64_t w = assignment(l, fname, ln, "width");
        if (w < 1 || w > 31) fail(fname, ln, "bad width mask " + std::to_string(w) + " (1..31)");
        def_width_ = static_cast<uint8_t>(lanes_of_mask(static_cast<unsigned>(w)));
      } else if (starts_with(l, "speed")) {
        uint64_t s = assignment(l, fname, ln, "speed");
        if (s < 1 || s > 7) fail(fname, ln, "bad speed mask " + std::to_string(s) + " (1..7)");
        def_speed_ = static_cast<uint8_t>(s);
      } else if (starts_with(l, "extspeed")) {
        uint64_t s = assignment(l, fname, ln, "extended speed");
        if (s > 7) fail(fname, ln, "bad extended speed " + std::to_string(s) + " (0..7)");
        def_speed_ext_ = static_cast<uint8_t>(s);
      } else if (starts_with(l, "module")) {
        fail(fname, ln, "'module=' node id prefixes are not supported");
      } else if (starts_with(l, "include")) {
        include(l, fname, ln);
      } else if (starts_with(l, "do")) {
        do_command(l.substr(2), fname, ln);
      } else if (is_terminal_banner(l)) {
        // a terminal program's log header (PuTTY: `=~=~=~...~= PuTTY log DATE =~=~...`): the
        // dump was captured from a console session; not part of it
        warn(fname + ":" + std::to_string(ln) + ": a terminal session log's header line, skipped (the dump was captured from a console)");
      } else if (l.empty() || l[0] == '#' || is_space(l[0])) {
        // comment or blank (ibsim ignores every line starting with a blank)
      } else if (capture && (i < first_record || i > last_record)) {
        // in a console capture: the prompt and the command before the dump, the prompt after it
        warn(fname + ":" + std::to_string(ln) + ": console text " + (i < first_record ? "before" : "after") +
             " the dump skipped (the file is a terminal session log)");
      } else if (l[0] == '[') {
        fail(fname, ln, "port line outside a node record (a blank line ends a record; ibsim would ignore this line)");
      } else if (l[0] == '@') {
        fail(fname, ln, "port aliases ('@') are not supported");
      } else {
        fail(fname, ln, "unrecognised line '" + std::string(l) +
                            "' (expected Switch/Hca/Ca/Rt, a directive, or a '#' comment)");
      }
      i++;
    }
  }

  void check_len(std::string_view l, const std::string& file, int ln) const {
    if (l.size() > kMaxLineLen)
      fail(file, ln, "line longer than " + std::to_string(kMaxLineLen) + " characters (ibsim would split it)");
  }

  uint64_t assignment(std::string_view l, const std::string& file, int ln, const char* what) {
    size_t eq = l.find('=');
    if (eq == std::string_view::npos) fail(file, ln, "bad assignment: missing '=' in '" + std::string(l) + "'");
    size_t pos = eq + 1;
    skip_ws(l, pos);
    uint64_t v = number(l, pos, file, ln, what);
    trailer(l, pos, file, ln, false);
    return v;
  }

  void guid_base(std::string_view l, TypeIdx t, const std::string& file, int ln) {
    size_t op = l.find('=');
    if (op == std::string_view::npos) op = l.find('+');
    if (op == std::string_view::npos) fail(file, ln, "bad GUID base: missing '=' or '+' in '" + std::string(l) + "'");
    size_t pos = op + 1;
    skip_ws(l, pos);
    uint64_t v = number(l, pos, file, ln, "GUID");
    skip_ws(l, pos);
    // ibnetdiscover prints switchguid=0xNODEGUID(PORTGUID): the port GUID of the next node of
    // this type, its fallback when the node GUID is shared (see netfile.hpp)
    paren_[t] = skip_guid(l, pos, file, ln);
    trailer(l, pos, file, ln, false);
    if (l[op] == '+') {
      next_[t] = abs_[t] + v;
    } else {
      abs_[t] = v;
      next_[t] = v;
    }
  }

  void include(std::string_view l, const std::string& file, int ln) {
    size_t q = l.find('"');
    if (q == std::string_view::npos) fail(file, ln, "bad include: expected include \"file\"");
    std::string name = quoted(l, q, file, ln, "include file name");
    namespace fs = std::filesystem;
    fs::path p(name);
    if (p.is_relative()) {
      fs::path beside = fs::path(file).parent_path() / p;
      if (fs::exists(beside)) p = beside;
    }
    if (depth_ >= kMaxIncludeDepth) fail(file, ln, "includes nested too deeply (max " + std::to_string(kMaxIncludeDepth) + ")");
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(p, ec);
    std::string key = ec ? p.string() : canon.string();
    if (std::find(stack_.begin(), stack_.end(), key) != stack_.end())
      fail(file, ln, "include cycle: \"" + name + "\" is already being read");
    std::error_code fec;
    if (!fs::exists(p, fec)) fail(file, ln, "cannot open include file \"" + p.string() + "\"");
    InputLimits lim = net_input_limits();
    lim.allow_empty = true;  // an empty include adds nothing; the top file must still define nodes
    std::string text = read_input_file(p.string(), lim);
    texts_.push_back(std::make_unique<std::string>(std::move(text)));
    stack_.push_back(key);
    depth_++;
    parse_text(*texts_.back(), p.string());
    depth_--;
    stack_.pop_back();
  }

  void do_command(std::string_view cmd, const std::string& file, int ln) {
    size_t pos = 0;
    skip_ws(cmd, pos);
    cmd = cmd.substr(pos);
    if (cmd.empty() || cmd[0] == '#') return;
    if (cmd[0] == '!') fail(file, ln, "'do !file' (console command files) is not supported");
    size_t e = 0;
    while (e < cmd.size() && !is_space(cmd[e])) e++;
    std::string word(cmd.substr(0, e));
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
    if (word == "link" || word == "unlink" || word == "relink" || word == "clear" || word == "baselid" ||
        word == "quit")
      fail(file, ln, "'do " + std::string(cmd.substr(0, e)) +
                         "' changes the fabric while it is loaded; not supported by the .net reader");
    if (word != "guid") return;  // Dump, Route, Verbose, Wait, Error, ... do not change the fabric
    size_t p = e;
    skip_ws(cmd, p);
    std::string id = quoted(cmd, p, file, ln, "node id in 'do Guid'");
    auto n = f_.find(id);
    if (!n) fail(file, ln, "'do Guid': unknown node \"" + id + "\" (it must be defined above)");
    Node& nd = f_.node(*n);
    int port = -1;
    if (p < cmd.size() && cmd[p] == '[') {
      p++;
      port = static_cast<int>(number(cmd, p, file, ln, "port number"));
      if (p >= cmd.size() || cmd[p] != ']') fail(file, ln, "'do Guid': expected ']'");
      p++;
      if ((!nd.is_switch() && port < 1) || port > nd.num_ports)
        fail(file, ln, "'do Guid': no port " + std::to_string(port) + " on \"" + id + "\"");
    }
    skip_ws(cmd, p);
    uint64_t g = number(cmd, p, file, ln, "GUID");
    trailer(cmd, p, file, ln, false);
    if (port >= 1 && !nd.is_switch())
      fail(file, ln, "'do Guid' on a CA/router port has no effect in ibsim 0.10 (ports always report node GUID + "
                     "port number); set the node GUID instead");
    // ibsim changes the node GUID; what the SM then sees for the ports follows it (switch ports
    // report the node GUID, CA/router port p reports node GUID + p)
    auto it = guids_.find(g);
    if (it != guids_.end() && it->second != *n)
      fail(file, ln, "'do Guid': node GUID " + hex(g) + " already used by \"" + f_.node(it->second).id + "\"");
    guids_.erase(nd.guid);
    nd.guid = g;
    nd.reported_guid = 0;
    own_[static_cast<size_t>(*n)] = 0;
    guids_[g] = *n;
    for (int q = 0; q <= nd.num_ports; q++)
      nd.port(q).guid = nd.is_switch() ? g : (q ? g + static_cast<uint64_t>(q) : 0);
  }

  // Node header at lines[i] plus its port lines; returns the index of the next line to read.
  size_t record(const std::vector<std::string_view>& lines, size_t i, TypeIdx t, size_t kwlen,
                const std::string& file) {
    std::string_view l = lines[i];
    const int ln = static_cast<int>(i) + 1;
    const char* kw = t == kSw ? "Switch" : t == kRt ? "Rt" : (kwlen == 3 ? "Hca" : "Ca");
    size_t pos = kwlen;
    // `Switch41`: a dump whose tabs a terminal log dropped (ibsim reads the count the same way)
    if (pos >= l.size() || (!is_space(l[pos]) && !std::isdigit(static_cast<unsigned char>(l[pos]))))
      fail(file, ln, std::string("expected the port count after '") + kw + "'");
    skip_ws(l, pos);
    uint64_t nports = number(l, pos, file, ln, "port count");
    {  // what ibsim reads: the first digits at or after offset 6 (Switch) or 3 (Hca/Ca/Rt)
      size_t ip = t == kSw ? 6 : 3;
      while (ip < l.size() && !std::isdigit(static_cast<unsigned char>(l[ip]))) ip++;
      uint64_t ibsim_n = std::strtoull(std::string(l.substr(ip)).c_str(), nullptr, 0);
      if (ibsim_n != nports)
        fail(file, ln, std::string("ibsim 0.10 would read ") + std::to_string(ibsim_n) + " ports here, not " +
                           std::to_string(nports) + " (it reads the count from character " + std::to_string(t == kSw ? 7 : 4) +
                           " on); write '" + kw + " N \"id\"'");
    }
    if (nports < 1 || nports > static_cast<uint64_t>(kMaxPorts))
      fail(file, ln, "bad port count " + std::to_string(nports) + " (1.." + std::to_string(kMaxPorts) + ")");
    skip_ws(l, pos);
    std::string id = quoted(l, pos, file, ln, "node id");
    check_id(id, file, ln);
    skip_ws(l, pos);
    std::string desc;
    std::string_view rest;
    if (pos < l.size()) {
      if (l[pos] != '#') fail(file, ln, "unexpected text '" + std::string(l.substr(pos)) + "' after the node id");
      pos++;
      skip_ws(l, pos);
      if (pos < l.size() && l[pos] == '"') {
        // up to the last '"' of the line: ibnetdiscover prints a NodeDescription as it is, quotes
        // included, and nothing quoted after it (ibsim would stop at the first inner '"')
        const size_t close = l.rfind('"');
        if (close == pos) fail(file, ln, "unterminated quoted node description");
        desc = std::string(l.substr(pos + 1, close - pos - 1));
        rest = l.substr(close + 1);
      } else {
        std::string_view s = l.substr(pos);
        size_t cut = std::string_view::npos;
        for (const char* pat : {" enhanced port ", " base port ", " lid ", " lmc "})
          if ((cut = s.find(pat)) != std::string_view::npos) break;
        desc = std::string(s.substr(0, cut));
        rest = cut == std::string_view::npos ? std::string_view() : s.substr(cut + 1);
      }
    }
    if (desc.empty()) desc = id;

    // create the node with ibsim's GUID, or with its own port GUID when that node GUID is shared
    const uint64_t guid = next_[t];
    const uint64_t paren = std::exchange(paren_[t], 0);
    const uint64_t own = t == kSw && paren != guid ? paren : 0;  // a port GUID of its own to fall back on
    const uint64_t ident = shared_guid(guid, own, id, file, ln);
    int n;
    try {
      n = f_.add_node(type_of(t), id, static_cast<int>(nports), ident);
    } catch (const FabricError& e) {
      fail(file, ln, e.what());
    }
    guids_[ident] = n;
    own_.push_back(own);
    where_.push_back({&file, ln});
    Node& nd = f_.node(n);
    nd.desc = desc;
    if (ident != guid) nd.reported_guid = guid;
    init_node_ports(nd, t == kSw, ident, def_width_, def_speed_, def_speed_ext_);
    next_[t] += t == kSw ? 1 : nports + 1;

    if (t == kSw && !rest.empty()) {  // switch LID/LMC on the header line (ibnetdiscover)
      uint64_t lid = 0, lmc = 0;
      bool has = field(rest, "lid ", lid, file, ln);
      field(rest, "lmc ", lmc, file, ln);
      if (has && lid == kUnassignedLid) note_unassigned(file, ln);
      else if (has && lid) lids_.push_back({n, 0, lid, lmc, &file, ln});
    }

    // port lines
    std::unordered_map<int, int> seen;  // port -> line
    size_t j = i + 1;
    uint64_t count = 0;
    while (j < lines.size() && count < nports) {
      std::string_view pl = lines[j];
      const int pln = static_cast<int>(j) + 1;
      check_len(pl, file, pln);
      if (!pl.empty() && pl[0] == '#') {
        j++;
        continue;
      }
      if (!pl.empty() && pl[0] == '[') {
        int port = port_line(pl, n, t, file, pln);
        if (auto it = seen.find(port); it != seen.end())
          fail(file, pln, "port " + f_.port_name(n, port) + " listed twice (first on line " +
                              std::to_string(it->second) + ")");
        seen[port] = pln;
        count++;
        j++;
        continue;
      }
      if (!pl.empty() && pl[0] == '@') fail(file, pln, "port aliases ('@') are not supported");
      if (is_blank(pl)) return j + 1;
      fail(file, pln, "the record of \"" + id + "\" (line " + std::to_string(ln) +
                          ") must end with a blank line before this line (ibsim would skip it)");
    }
    if (count == nports && j < lines.size() && !lines[j].empty() && lines[j][0] == '[')
      fail(file, static_cast<int>(j) + 1,
           "\"" + id + "\" has " + std::to_string(nports) + " ports but more port lines follow");
    return j;
  }

  std::string where(int n) const {
    const auto& w = where_.at(static_cast<size_t>(n));
    return *w.first + ":" + std::to_string(w.second);
  }

  // The GUID a new node reporting node GUID `guid` is read with (netfile.hpp, "Shared node
  // GUIDs"): `guid` when no node has it; else its own port GUID `own` (0: none, an error naming
  // both nodes), and the first node that reported `guid` falls back to its own port GUID too.
  uint64_t shared_guid(uint64_t guid, uint64_t own, const std::string& id, const std::string& file, int ln) {
    auto sh = shared_.find(guid);
    int first = sh != shared_.end() ? sh->second : -1;
    if (first < 0)
      if (auto it = guids_.find(guid); it != guids_.end()) first = it->second;
    if (first < 0) return guid;
    if (!own)
      fail(file, ln, "node GUID " + hex(guid) + " of \"" + id + "\" is already used by \"" + f_.node(first).id + "\" (" +
                         where(first) + ")" +
                         (sh != shared_.end() || own_[static_cast<size_t>(first)]
                              ? "; a switch sharing it needs a port GUID of its own: switchguid=0x..(PORTGUID)"
                              : ""));
    auto taken = [&](uint64_t g, const std::string& who, uint64_t reported) {
      if (auto it = guids_.find(g); it != guids_.end())
        fail(file, ln, "port GUID " + hex(g) + " of \"" + who + "\" (node GUID " + hex(reported) +
                           ", shared) is already used by \"" + f_.node(it->second).id + "\" (" + where(it->second) + ")");
    };
    if (sh == shared_.end()) {  // the second node reporting `guid`: the first one falls back too
      shared_[guid] = first;
      if (shared_example_.empty())
        shared_example_ = file + ":" + std::to_string(ln) + ": node GUID " + hex(guid) + " of \"" +
                          escape_name(f_.node(first).id) + "\" and \"" + escape_name(id) + "\"";
      Node& fn = f_.node(first);
      const uint64_t fo = own_[static_cast<size_t>(first)];
      if (fo && fn.guid == guid) {
        taken(fo, fn.id, guid);
        guids_.erase(guid);
        guids_[fo] = first;
        fn.guid = fo;
        fn.reported_guid = guid;
        for (Port& p : fn.ports) p.guid = fo;
      }
    }
    taken(own, id, guid);
    return own;
  }

  // A reader's warning: to opt_.warnings when set, else to stderr.
  void warn(const std::string& w) const {
    if (opt_.warnings) opt_.warnings->push_back(w);
    else std::fprintf(stderr, "ftroute: warning: %s\n", w.c_str());
  }

  // `lid 65535` (0xffff, the permissive LID) is what a port without an assigned LID shows in some
  // ibnetdiscover captures: read as no LID, with one warning per file read naming the first.
  static constexpr uint64_t kUnassignedLid = 0xffff;
  void note_unassigned(const std::string& file, int ln) {
    if (unassigned_++ == 0) unassigned_example_ = file + ":" + std::to_string(ln);
  }
  void warn_unassigned() const {
    const std::string w = unassigned_example_ + ": LID 65535 (unassigned) read as no LID (" +
                          std::to_string(unassigned_) + " port" + (unassigned_ == 1 ? "" : "s") +
                          " in all); where other ports have LIDs, renumber with --lmc N";
    warn(w);
  }

  // One warning per file read: how many switches were told apart by their port GUIDs.
  void warn_shared() const {
    size_t moved = 0;
    for (const Node& nd : f_.nodes()) moved += nd.reported_guid != 0;
    const std::string w = shared_example_ +
                          (shared_.size() == 1 ? std::string(" (a node GUID reported by several switches, ")
                                               : " (the first of " + std::to_string(shared_.size()) +
                                                     " node GUIDs reported by several switches, ") +
                          std::to_string(moved) + " switch" + (moved == 1 ? "" : "es") +
                          " in all, as the ASICs of a director chassis report the chassis GUID): each is read " +
                          "with the port GUID of its switchguid= line as its GUID, the shared one kept as its " +
                          "reported GUID; ibsim refuses the file, `ftroute export --to ibsim` writes one it loads";
    warn(w);
  }

  // "key N" somewhere in s -> v; returns whether key was present.
  bool field(std::string_view s, const char* key, uint64_t& v, const std::string& file, int ln) const {
    size_t k = s.find(key);
    if (k == std::string_view::npos) return false;
    size_t pos = k + std::char_traits<char>::length(key);
    skip_ws(s, pos);
    v = number(s, pos, file, ln, key[1] == 'i' ? "LID" : "LMC");
    return true;
  }

  int port_line(std::string_view l, int n, TypeIdx t, const std::string& file, int ln) {
    Node& nd = f_.node(n);
    size_t pos = 1;
    skip_ws(l, pos);
    uint64_t p = number(l, pos, file, ln, "port number");
    skip_ws(l, pos);
    if (pos >= l.size() || l[pos] != ']') fail(file, ln, "expected ']' after the port number");
    pos++;
    if (p < 1 || p > static_cast<uint64_t>(nd.num_ports))
      fail(file, ln, "port " + std::to_string(p) + " out of range: \"" + nd.id + "\" has ports 1.." +
                         std::to_string(nd.num_ports));
    const int port = static_cast<int>(p);
    const uint64_t own_guid = skip_guid(l, pos, file, ln);  // ibnetdiscover: CA port GUID
    skip_ws(l, pos);
    if (pos >= l.size() || l[pos] != '"') fail(file, ln, "expected the quoted remote node id after [" + std::to_string(p) + "]");
    std::string remote = quoted(l, pos, file, ln, "remote node id");
    if (remote.find('@') != std::string::npos) fail(file, ln, "port aliases ('@') are not supported");
    check_id(remote, file, ln);
    int rport = 1;  // ibsim's default when no [port] follows the remote id
    if (pos < l.size() && l[pos] == '[') {
      pos++;
      skip_ws(l, pos);
      uint64_t rp = number(l, pos, file, ln, "remote port number");
      skip_ws(l, pos);
      if (pos >= l.size() || l[pos] != ']') fail(file, ln, "expected ']' after the remote port number");
      pos++;
      if (rp < 1 || rp > static_cast<uint64_t>(kMaxPorts))
        fail(file, ln, "invalid remote port " + std::to_string(rp));
      rport = static_cast<int>(rp);
    } else {
      size_t q = pos;
      skip_ws(l, q);
      if (q < l.size() && l[q] == '[')
        fail(file, ln, "write the remote port right after the id (\"" + remote +
                           "\"[N]); ibsim reads '\"" + remote + "\" [N]' as port 1");
    }
    skip_guid(l, pos, file, ln);
    std::string_view rest = l.substr(pos);
    size_t hash = rest.find('#');
    std::string_view opts = rest.substr(0, hash);
    std::string_view comment = hash == std::string_view::npos ? std::string_view() : rest.substr(hash + 1);
    Port& pt = nd.port(port);
    if (opt_.port_guids_from_file && own_guid && t != kSw) pt.guid = own_guid;
    // options w=/s=/e=
    size_t o = 0;
    while (true) {
      skip_ws(opts, o);
      if (o >= opts.size()) break;
      size_t e = o;
      while (e < opts.size() && !is_space(opts[e])) e++;
      std::string_view tok = opts.substr(o, e - o);
      if (tok.size() < 3 || tok[1] != '=' || (tok[0] != 'w' && tok[0] != 's' && tok[0] != 'e'))
        fail(file, ln, "unknown port option '" + std::string(tok) + "' (expected w=, s= or e=)");
      size_t vp = 2;
      uint64_t v = number(tok, vp, file, ln, "port option value");
      if (vp != tok.size()) fail(file, ln, "bad port option '" + std::string(tok) + "'");
      if (tok[0] == 'w') {
        if (v < 1 || v > 31) fail(file, ln, "bad width mask w=" + std::to_string(v) + " (1..31)");
        pt.width = static_cast<uint8_t>(lanes_of_mask(static_cast<unsigned>(v)));
      } else if (tok[0] == 's') {
        if (v < 1 || v > 7) fail(file, ln, "bad speed mask s=" + std::to_string(v) + " (1..7)");
        pt.speed = static_cast<uint8_t>(v);
      } else {
        if (v > 7) fail(file, ln, "bad extended speed e=" + std::to_string(v) + " (0..7)");
        pt.speed_ext = static_cast<uint8_t>(v);
      }
      o = e;
    }
    // ibnetdiscover comment: [lid N lmc M (CA ports)] "desc" lid N <W>x<SPEED>
    if (!comment.empty()) {
      size_t lastq = comment.rfind('"');
      std::string_view tail = lastq == std::string_view::npos ? comment : comment.substr(lastq + 1);
      size_t lidpos = tail.find("lid");
      if (lidpos != std::string_view::npos) {  // ibsim only looks at lines whose tail has "lid"
        if (t != kSw) {
          std::string_view head = lastq == std::string_view::npos ? comment : comment.substr(0, comment.find('"'));
          uint64_t lid = 0, lmc = 0;
          bool has = field(head, "lid ", lid, file, ln);
          field(head, "lmc ", lmc, file, ln);
          if (has && lid == kUnassignedLid) note_unassigned(file, ln);
          else if (has && lid) lids_.push_back({n, port, lid, lmc, &file, ln});
        }
        int rl = 0, w = 0;
        char sp[16] = {0};
        if (std::sscanf(std::string(tail.substr(lidpos)).c_str(), "lid %d %dx%9s", &rl, &w, sp) == 3) {
          if (w == 1 || w == 2 || w == 4 || w == 8 || w == 12) pt.width = static_cast<uint8_t>(w);
          // what ibsim enables for the speed (s=, e=); NDR, unknown to ibsim 0.10, as HDR
          std::string s(sp);
          if (s == "SDR") pt.speed = 1;
          else if (s == "DDR") pt.speed = 3;
          else if (s == "QDR" || s == "FDR10") pt.speed = 7;
          else if (s == "FDR" || s == "EDR" || s == "HDR" || s == "NDR") {
            pt.speed = 7;
            pt.speed_ext = s == "FDR" ? 1 : s == "EDR" ? 3 : 7;
          }
        }
      }
    }
    decls_.push_back({n, port, std::move(remote), rport, &file, ln});
    return port;
  }

  // Optional "(hexguid)" as ibnetdiscover prints it; returns the value (0 if absent).
  uint64_t skip_guid(std::string_view l, size_t& pos, const std::string& file, int ln) const {
    if (pos >= l.size() || l[pos] != '(') return 0;
    size_t close = l.find(')', pos);
    if (close == std::string_view::npos) fail(file, ln, "unterminated '(guid)'");
    std::string_view hexs = l.substr(pos + 1, close - pos - 1);
    if (hexs.size() > 2 && hexs[0] == '0' && (hexs[1] == 'x' || hexs[1] == 'X')) hexs.remove_prefix(2);
    if (hexs.empty() || hexs.size() > 16 ||
        !std::all_of(hexs.begin(), hexs.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
      fail(file, ln, "bad GUID '" + std::string(l.substr(pos, close - pos + 1)) + "'");
    pos = close + 1;
    return std::stoull(std::string(hexs), nullptr, 16);
  }

  void finish() {
    std::unordered_map<int64_t, size_t> at;  // (node, port) -> decl index
    auto key = [](int n, int p) { return static_cast<int64_t>(n) * 256 + p; };
    for (size_t k = 0; k < decls_.size(); k++) at[key(decls_[k].node, decls_[k].port)] = k;
    for (const Decl& d : decls_) {
      const std::string& file = *d.file;
      auto r = f_.find(d.remote);
      if (!r)
        fail(file, d.line, "unknown node \"" + d.remote + "\" in the link from " + f_.port_name(d.node, d.port));
      const Node& rn = f_.node(*r);
      if (d.rport > rn.num_ports)
        fail(file, d.line, "port " + f_.port_name(*r, d.rport) + " out of range: \"" + rn.id + "\" has ports 1.." +
                               std::to_string(rn.num_ports) + " (link from " + f_.port_name(d.node, d.port) + ")");
      if (*r == d.node && d.rport == d.port) fail(file, d.line, "port " + f_.port_name(d.node, d.port) + " linked to itself");
      if (auto it = at.find(key(*r, d.rport)); it != at.end()) {
        const Decl& o = decls_[it->second];
        if (o.remote != f_.node(d.node).id || o.rport != d.port)
          fail(file, d.line, "asymmetric link: " + f_.port_name(d.node, d.port) + " -> " + f_.port_name(*r, d.rport) +
                                 ", but " + f_.port_name(*r, d.rport) + " -> \"" + o.remote + "\"[" +
                                 std::to_string(o.rport) + "] (" + *o.file + ":" + std::to_string(o.line) + ")");
      }
      try {
        f_.connect(d.node, d.port, *r, d.rport);
      } catch (const FabricError& e) {
        fail(file, d.line, e.what());
      }
    }
    // LIDs
    std::vector<const LidDecl*> order;
    for (const LidDecl& l : lids_) {
      if (l.lmc > 7) fail(*l.file, l.line, "LMC " + std::to_string(l.lmc) + " (max 7)");
      if (l.lid + (1ull << l.lmc) - 1 > kMaxUnicastLid)
        fail(*l.file, l.line, "LID " + std::to_string(l.lid) + " (LMC " + std::to_string(l.lmc) +
                                  ") is outside the unicast range 1..0xbfff");
      order.push_back(&l);
    }
    std::sort(order.begin(), order.end(), [](const LidDecl* a, const LidDecl* b) { return a->lid < b->lid; });
    const LidDecl* widest = nullptr;  // earlier range reaching furthest
    for (const LidDecl* l : order) {
      if (widest && l->lid <= widest->lid + (1ull << widest->lmc) - 1)
        fail(*l->file, l->line, "LID " + std::to_string(l->lid) + " of " + f_.port_name(l->node, l->port) +
                                    " overlaps the LIDs of " + f_.port_name(widest->node, widest->port) + " (" +
                                    *widest->file + ":" + std::to_string(widest->line) + ")");
      if (!widest || l->lid + (1ull << l->lmc) > widest->lid + (1ull << widest->lmc)) widest = l;
    }
    for (const LidDecl& l : lids_) {
      Port& p = f_.node(l.node).port(l.port);
      p.base_lid = static_cast<Lid>(l.lid);
      p.lmc = static_cast<uint8_t>(l.lmc);
    }
    if (!lids_.empty()) {  // rebuild the LID index
      const LidDecl& l = lids_.back();
      f_.set_lid(l.node, l.port, static_cast<Lid>(l.lid), static_cast<uint8_t>(l.lmc));
    }
    try {
      f_.validate();
    } catch (const FabricError& e) {
      fail(files_.empty() ? std::string() : *files_.front(), 0, e.what());
    }
  }

  NetReadOptions opt_;
  Fabric f_;
  uint64_t abs_[3] = {0x100000, 0x200000, 0};   // ibsim's GUID bases (CA, switch, router)
  uint64_t next_[3] = {0x100000, 0x200000, 0};
  uint8_t def_width_ = 4;  // lanes
  uint8_t def_speed_ = 0;  // 0 = ibsim default (SDR)
  uint8_t def_speed_ext_ = 0;
  std::vector<Decl> decls_;
  std::vector<LidDecl> lids_;
  std::unordered_map<uint64_t, int> guids_;  // node GUID -> node
  uint64_t paren_[3] = {0, 0, 0};  // "(PORTGUID)" of the last GUID directive, for the next node of its type
  std::vector<uint64_t> own_;      // by node: a switch's port GUID from its switchguid= line if not its node GUID
  std::vector<std::pair<const std::string*, int>> where_;  // by node: file and line of its header
  std::unordered_map<uint64_t, int> shared_;  // node GUID reported by several switches -> the first of them
  std::string shared_example_;  // the first sharing: "file:line: node GUID .. of "A" and "B""
  long unassigned_ = 0;             // `lid 65535` ports read as without LID
  std::string unassigned_example_;  // "file:line" of the first
  std::vector<std::unique_ptr<std::string>> files_, texts_;
  std::vector<std::string> stack_;
  int depth_ = 0;
};

}  // namespace

Fabric parse_net(std::string_view text, const std::string& filename) {
  return parse_net(text, filename, NetReadOptions{});
}

Fabric parse_net(std::string_view text, const std::string& filename, const NetReadOptions& opt) {
  if (auto f = fast_parse_net(text)) return std::move(*f);  // netfile_fast.cpp; declines on anything irregular
  Parser p(opt);
  return p.build(text, filename);
}

Fabric read_net_file(const std::string& path) { return read_net_file(path, NetReadOptions{}); }

Fabric read_net_file(const std::string& path, const NetReadOptions& opt) {
  InputLimits lim = net_input_limits();
  lim.caller_checks_text = true;  // parse_net: the fast reader takes only clean text, the full parser checks it
  const InputText text = read_input_text(path, lim);  // a regular file: read(2) into an uninitialised buffer
  return parse_net(text.view(), path, opt);
}

// ------------------------------------------------------------------------------------------
// writer

}  // namespace ftroute
