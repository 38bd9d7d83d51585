#include "ftroute/lft_io.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "lft_text.hpp"
#include "strfmt.hpp"

namespace ftroute {

namespace detail {

std::string header_opensm(const LftTable& t) {
  return fmt("Unicast lids [%u-%u] of switch %s guid 0x%016" PRIx64 " ('%s'):", t.lid_lo, t.lid_hi, t.addr.c_str(),
             t.guid, t.desc.c_str());
}
std::string header_dumpfts(const LftTable& t) {
  return fmt("Unicast lids [0x%x-0x%x] of switch %s guid 0x%016" PRIx64 " (%s):", t.lid_lo, t.lid_hi,
             t.addr.c_str(), t.guid, t.desc.c_str());
}
std::string header_minimal(const LftTable& t) {
  return fmt("Unicast lids [%u-%u] of switch guid 0x%016" PRIx64 " :", t.lid_lo, t.lid_hi, t.guid);
}

}  // namespace detail

namespace {

using detail::fmt;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
std::string_view ltrim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}
std::string_view rtrim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Parses an unsigned number (hex with 0x, else decimal) at the start of s; advances s.
std::optional<uint64_t> take_number(std::string_view& s, bool allow_hex = true) {
  size_t i = 0;
  int base = 10;
  if (allow_hex && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    i = 2;
  }
  const size_t start = i;
  uint64_t v = 0;
  for (; i < s.size(); i++) {
    char c = s[i];
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else break;
    if (v > (UINT64_MAX >> 4)) return std::nullopt;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  if (i == start) return std::nullopt;
  s.remove_prefix(i);
  return v;
}

using detail::header_dumpfts;
using detail::header_minimal;
using detail::header_opensm;
using detail::kDumpFtsCol1;
using detail::kDumpFtsCol2;
std::string entry_prefix(const LftEntry& e) { return fmt("0x%04x %03u", e.lid, e.port); }

constexpr size_t kMaxLftLine = 4096;  // OpenSM / dump_fts lines are < 200 characters

void scan_info(LftEntry& e) {
  e.portguid = 0;
  e.path_index = 0;
  auto p = e.info.find("portguid 0x");
  if (p != std::string::npos) {
    std::string_view s(e.info);
    s.remove_prefix(p + 9);
    if (auto v = take_number(s)) e.portguid = *v;
  }
  auto q = e.info.find("(path #");
  if (q != std::string::npos) {
    std::string_view s(e.info);
    s.remove_prefix(q + 7);
    if (auto v = take_number(s, false)) e.path_index = static_cast<int>(*v);
  }
}

}  // namespace

const char* lft_format_name(LftFormat f) {
  switch (f) {
    case LftFormat::Auto: return "auto";
    case LftFormat::Opensm: return "opensm";
    case LftFormat::DumpFts: return "dump_fts";
    case LftFormat::Minimal: return "minimal";
  }
  return "?";
}

std::optional<LftFormat> parse_lft_format(std::string_view n) {
  if (n == "auto") return LftFormat::Auto;
  if (n == "opensm" || n == "opensm-lfts" || n == "opensm-lfts.dump") return LftFormat::Opensm;
  if (n == "dump_fts" || n == "dump-fts" || n == "ibroute" || n == "dump_lfts") return LftFormat::DumpFts;
  if (n == "minimal") return LftFormat::Minimal;
  return std::nullopt;
}

const char* ib_node_type_str(NodeType t) {
  switch (t) {
    case NodeType::Switch: return "Switch";
    case NodeType::Ca: return "Channel Adapter";
    case NodeType::Router: return "Router";
  }
  return "Unknown";
}

// ------------------------------------------------------------------ parsing

LftFile parse_lft(std::string_view text, const std::string& filename, LftFormat format) {
  check_input_text(text, filename, kMaxLftLine);  // binary data, absurd lines: before anything else
  LftFile file;
  file.filename = filename;
  file.final_newline = text.empty() || text.back() == '\n';
  std::vector<std::string_view> lines;
  {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string_view::npos) nl = text.size();
      lines.push_back(text.substr(pos, nl - pos));
      pos = nl + 1;
    }
  }
  std::vector<std::string> pending;  // verbatim blank/comment lines not yet attached
  LftTable* cur = nullptr;
  bool cur_closed = false;  // footer seen
  // duplicate LIDs in one table: per LID the table number (1-based) and entry index that set it
  std::vector<uint32_t> lid_table, lid_entry;
  auto err = [&](int line, const std::string& msg) { throw ParseError(filename, line, msg); };

  for (size_t i = 0; i < lines.size(); i++) {
    const int ln = static_cast<int>(i + 1);
    const std::string_view raw = lines[i];
    const std::string_view s = rtrim(ltrim(raw));
    if (s.empty() || s.front() == '#') {
      pending.emplace_back(raw);
      continue;
    }
    if (starts_with(s, "Multicast mlids"))
      err(ln, "multicast forwarding tables are not supported (dump unicast tables only)");
    if (starts_with(s, "Unicast lids")) {
      LftTable t;
      t.line = ln;
      t.header = std::string(raw);
      t.leading = std::move(pending);
      pending.clear();
      std::string_view r = s.substr(12);
      r = ltrim(r);
      if (r.empty() || r.front() != '[') err(ln, "malformed table header: expected '[' after 'Unicast lids'");
      r.remove_prefix(1);
      t.hex_range = starts_with(r, "0x") || starts_with(r, "0X");
      auto lo = take_number(r);
      if (!lo || r.empty() || r.front() != '-') err(ln, "malformed LID range in table header");
      r.remove_prefix(1);
      auto hi = take_number(r);
      if (!hi || r.empty() || r.front() != ']') err(ln, "malformed LID range in table header");
      r.remove_prefix(1);
      if (*hi > 0xFFFF || *lo > *hi) err(ln, "LID range [" + std::to_string(*lo) + "-" + std::to_string(*hi) + "] invalid");
      t.lid_lo = static_cast<uint32_t>(*lo);
      t.lid_hi = static_cast<uint32_t>(*hi);
      auto sw = r.find("of switch");
      auto g = r.find("guid 0x");
      if (sw == std::string_view::npos || g == std::string_view::npos || g < sw)
        err(ln, "malformed table header: expected 'of switch ... guid 0x<hex>'");
      t.addr = std::string(rtrim(ltrim(r.substr(sw + 9, g - sw - 9))));
      std::string_view rest = r.substr(g + 5);
      auto guid = take_number(rest);
      if (!guid) err(ln, "malformed switch GUID in table header");
      t.guid = *guid;
      // description: " ('desc'):" (OpenSM) or " (desc):" (dump_fts); minimal: " :"
      std::string_view d = rtrim(rest);
      if (starts_with(d, " (") && d.size() >= 4 && d.substr(d.size() - 2) == "):") {
        std::string_view inner = d.substr(2, d.size() - 4);
        if (inner.size() >= 2 && inner.front() == '\'' && inner.back() == '\'') {
          t.desc = std::string(inner.substr(1, inner.size() - 2));
          t.style = LftFormat::Opensm;
        } else {
          t.desc = std::string(inner);
          t.style = LftFormat::DumpFts;
        }
      } else {
        t.style = LftFormat::Minimal;
      }
      // Keep the style only if we can rebuild the header byte for byte; otherwise verbatim.
      if (t.style == LftFormat::Opensm && header_opensm(t) != raw) t.style = LftFormat::Minimal;
      if (t.style == LftFormat::DumpFts && header_dumpfts(t) != raw) t.style = LftFormat::Minimal;
      if (format != LftFormat::Auto && format != LftFormat::Minimal && t.style != LftFormat::Minimal &&
          t.style != format)
        err(ln, std::string("table header is in ") + lft_format_name(t.style) + " format, expected " +
                    lft_format_name(format));
      file.tables.push_back(std::move(t));
      cur = &file.tables.back();
      cur_closed = false;
      continue;
    }
    if (starts_with(s, "Lid  Out") || starts_with(s, "Port     Info") || starts_with(s, "Port Info")) {
      if (!cur || cur_closed || !cur->entries.empty()) err(ln, "column header outside a dump_fts table header");
      cur->columns.emplace_back(raw);
      continue;
    }
    if (s.find("lids dumped") != std::string_view::npos) {
      std::string_view t = s;
      if (!take_number(t, false) || (t != " lids dumped" && t != " valid lids dumped"))
        err(ln, "malformed footer line: expected '<n> lids dumped' or '<n> valid lids dumped'");
      if (!cur || cur_closed) err(ln, "footer line outside a table");
      cur->footer = std::string(raw);
      cur->before_footer = std::move(pending);
      pending.clear();
      cur_closed = true;
      continue;
    }
    if (starts_with(s, "0x") || starts_with(s, "0X")) {
      if (!cur || cur_closed) err(ln, "forwarding entry outside a table (no 'Unicast lids ...' header before it)");
      std::string_view r = ltrim(raw);
      auto lid = take_number(r);
      if (!lid) err(ln, "malformed LID");
      if (*lid > kMaxUnicastLid) err(ln, fmt("LID 0x%" PRIx64 " is not a unicast LID", *lid));
      if (r.empty() || (r.front() != ' ' && r.front() != '\t')) err(ln, "malformed line: expected '<lid> <port>'");
      r = ltrim(r);
      auto port = take_number(r, false);
      if (!port) err(ln, "malformed port number");
      if (*port > 255) err(ln, "port " + std::to_string(*port) + " out of range (0..255)");
      if (!r.empty() && r.front() != ' ' && r.front() != '\t' && r.front() != '\r')
        err(ln, "malformed port number");
      LftEntry e;
      e.lid = static_cast<Lid>(*lid);
      e.port = static_cast<uint8_t>(*port);
      e.line = ln;
      if (lid_table.empty()) lid_table.assign(kMaxUnicastLid + 1u, 0), lid_entry.assign(kMaxUnicastLid + 1u, 0);
      const uint32_t tno = static_cast<uint32_t>(file.tables.size());
      if (lid_table[e.lid] == tno) {
        const LftEntry& prev = cur->entries[lid_entry[e.lid]];
        if (prev.port != e.port)
          err(ln, fmt("LID 0x%04x listed twice in the table of line %d, with port %u here and port %u on line %d",
                      e.lid, cur->line, static_cast<unsigned>(e.port), static_cast<unsigned>(prev.port), prev.line));
        file.warnings.push_back(filename + ":" + std::to_string(ln) + fmt(": LID 0x%04x listed twice", e.lid) +
                                " (same port as line " + std::to_string(prev.line) + ")");
      }
      lid_table[e.lid] = tno;
      lid_entry[e.lid] = static_cast<uint32_t>(cur->entries.size());
      e.info = std::string(r);
      scan_info(e);
      e.before = std::move(pending);
      pending.clear();
      // non-canonical column layout ("0x1 5"): keep the whole line verbatim
      if (entry_prefix(e) + e.info != raw) {
        e.info = std::string(raw);
        e.path_index = -e.path_index - 1;  // marks a verbatim line (decoded in write)
      }
      cur->entries.push_back(std::move(e));
      continue;
    }
    err(ln, "malformed line '" + std::string(s.substr(0, 60)) + "'");
  }
  file.trailing = std::move(pending);
  if (!file.tables.empty()) file.format = file.tables.front().style;
  if (file.tables.empty() && format != LftFormat::Auto) file.format = format;
  return file;
}

LftFile read_lft_file(const std::string& path, LftFormat format) {
  LftFile f = parse_lft(read_input_file(path, table_input_limits()), path, format);
  if (f.tables.empty())
    throw ParseError(path, 0, "no forwarding table in the file (no 'Unicast lids [..] of switch ...' header)");
  return f;
}

std::string write_lft_file(const LftFile& f) {
  std::string out;
  auto line = [&](const std::string& l) {
    out += l;
    out += '\n';
  };
  for (const LftTable& t : f.tables) {
    for (const auto& l : t.leading) line(l);
    switch (t.style) {
      case LftFormat::Opensm: line(header_opensm(t)); break;
      case LftFormat::DumpFts: line(header_dumpfts(t)); break;
      default: line(t.header.empty() ? header_minimal(t) : t.header); break;
    }
    if (t.style == LftFormat::DumpFts && t.columns.empty() && t.line == 0) {
      line(kDumpFtsCol1);
      line(kDumpFtsCol2);
    }
    for (const auto& c : t.columns) line(c);
    for (const LftEntry& e : t.entries) {
      for (const auto& l : e.before) line(l);
      if (e.path_index < 0) line(e.info);  // verbatim (non-canonical) line
      else line(entry_prefix(e) + e.info);
    }
    for (const auto& l : t.before_footer) line(l);
    if (!t.footer.empty()) line(t.footer);
  }
  for (const auto& l : f.trailing) line(l);
  return out;
}

// ------------------------------------------------------------------ mapping

namespace {

struct GuidIndex {
  std::unordered_map<uint64_t, std::pair<int, int>> port;  // port GUID -> (node, end port)
  explicit GuidIndex(const Fabric& f) {
    for (int i = 0; i < f.size(); i++) {
      const Node& n = f.node(i);
      if (n.is_switch()) {
        if (n.guid) port.emplace(n.guid, std::make_pair(i, 0));
      } else {
        for (int p = 1; p <= n.num_ports; p++)
          if (n.port(p).guid) port.emplace(n.port(p).guid, std::make_pair(i, p));
      }
    }
  }
};

// Owner port GUID of every entry (resolving "path #k out of n" lines without a GUID to the
// preceding entry's GUID) and the first LID each GUID has in the file.
struct FileLids {
  std::vector<std::vector<uint64_t>> owner;     // [table][entry] -> port GUID (0 = none)
  std::map<uint64_t, uint32_t> first, last;
  std::map<uint64_t, int> first_line;
  explicit FileLids(const LftFile& file) {
    for (const LftTable& t : file.tables) {
      owner.emplace_back();
      uint64_t prev = 0;
      for (const LftEntry& e : t.entries) {
        int pi = e.path_index < 0 ? -e.path_index - 1 : e.path_index;
        uint64_t g = e.portguid ? e.portguid : (pi > 1 ? prev : 0);
        owner.back().push_back(g);
        if (e.portguid) prev = e.portguid;
        if (!g) continue;
        auto it = first.find(g);
        if (it == first.end() || e.lid < it->second) {
          first[g] = e.lid;
          first_line[g] = e.line;
        }
        if (!last.count(g) || e.lid > last[g]) last[g] = e.lid;
      }
    }
  }
};

}  // namespace

int adopt_lids(const LftFile& file, Fabric& fabric) {
  GuidIndex idx(fabric);
  FileLids fl(file);
  for (int i = 0; i < fabric.size(); i++) {
    Node& n = fabric.node(i);
    for (int p = 0; p <= n.num_ports; p++) n.port(p).base_lid = 0, n.port(p).lmc = 0;
  }
  int count = 0;
  for (auto& [g, lo] : fl.first) {
    auto it = idx.port.find(g);
    if (it == idx.port.end())
      throw ParseError(file.filename, fl.first_line[g],
                       fmt("port GUID 0x%016" PRIx64 " is not in the fabric", g));
    const uint32_t n = fl.last[g] - lo + 1;
    uint8_t lmc = 0;
    while ((1u << lmc) < n) lmc++;
    if (lmc > 7)
      throw ParseError(file.filename, fl.first_line[g], fmt("port GUID 0x%016" PRIx64 " has %u LIDs (LMC > 7)", g, n));
    if (lo % (1u << lmc) != 0 || lo == 0)
      throw ParseError(file.filename, fl.first_line[g],
                       fmt("port GUID 0x%016" PRIx64 ": LIDs %u-%u are not an aligned LMC range", g, lo, fl.last[g]));
    const int node = it->second.first, port = it->second.second;
    // switch port 0 normally has LMC 0 (unless lmc_esp0): a switch with several LIDs is kept
    fabric.set_lid(node, port, static_cast<Lid>(lo), lmc);
    count++;
  }
  try {
    fabric.validate();
  } catch (const FabricError& e) {
    throw ParseError(file.filename, 0, std::string("LIDs taken from the file: ") + e.what());
  }
  return count;
}

Lid dump_fts_unread_lid(const LftTable& t) {
  if (!t.hex_range || t.lid_hi == 0 || t.lid_hi % 64 != 0 || t.lid_lo > t.lid_hi) return 0;
  for (const LftEntry& e : t.entries)
    if (e.lid == t.lid_hi) return 0;
  return static_cast<Lid>(t.lid_hi);
}

LftMapResult map_lfts(const LftFile& file, const Fabric& fabric) {
  LftMapResult res;
  res.warnings = file.warnings;
  res.lfts = Lfts(fabric);
  GuidIndex idx(fabric);
  FileLids fl(file);
  std::vector<int> seen(static_cast<size_t>(fabric.size()), 0);  // header line per switch
  for (size_t ti = 0; ti < file.tables.size(); ti++) {
    const LftTable& t = file.tables[ti];
    std::optional<int> sw = fabric.find_guid(t.guid);
    const std::string gtxt = fmt("0x%016" PRIx64, t.guid);
    if (sw && !fabric.node(*sw).is_switch())
      throw ParseError(file.filename, t.line, "GUID " + gtxt + " belongs to " + fabric.node_name(*sw) + ", which is not a switch");
    if (!sw && !t.desc.empty()) {
      std::optional<int> m;
      int matches = 0;
      for (int s : fabric.switches())
        if (fabric.node(s).desc == t.desc || fabric.node(s).id == t.desc) m = s, matches++;
      if (matches == 1) {
        sw = m;
        res.warnings.push_back(file.filename + ":" + std::to_string(t.line) + ": switch GUID " + gtxt +
                               " not in the fabric, matched " + quote_name(t.desc) + " by description");
      } else if (matches > 1) {
        throw ParseError(file.filename, t.line,
                         "unknown switch GUID " + gtxt + " and description '" + t.desc + "' is ambiguous");
      }
    }
    if (!sw)
      throw ParseError(file.filename, t.line,
                       "unknown switch GUID " + gtxt + (t.desc.empty() ? "" : " ('" + t.desc + "')") +
                           ": not in the fabric");
    const int s = *sw;
    if (seen[static_cast<size_t>(s)])
      throw ParseError(file.filename, t.line,
                       "second table for switch " + fabric.node_name(s) + " (first at line " +
                           std::to_string(seen[static_cast<size_t>(s)]) + ")");
    seen[static_cast<size_t>(s)] = t.line ? t.line : -1;
    const int np = fabric.node(s).num_ports;
    for (size_t k = 0; k < t.entries.size(); k++) {
      const LftEntry& e = t.entries[k];
      if (e.port == kNoPath) continue;
      if (e.port > np)
        throw ParseError(file.filename, e.line,
                         "port " + std::to_string(e.port) + " beyond the " + std::to_string(np) + " ports of switch " +
                             fabric.node_name(s));
      Lid lid = e.lid;
      const uint64_t g = fl.owner[ti][k];
      if (g) {
        auto it = idx.port.find(g);
        if (it == idx.port.end())
          throw ParseError(file.filename, e.line,
                           fmt("destination port GUID 0x%016" PRIx64 " (LID 0x%04x) is not in the fabric", g, e.lid));
        const Port& p = fabric.node(it->second.first).port(it->second.second);
        if (!p.base_lid)
          throw ParseError(file.filename, e.line,
                           "destination " + fabric.port_name(it->second.first, it->second.second) +
                               " has no LID in the fabric; the LIDs can be taken from this file instead "
                               "(`ftroute check --lids-from-file`)");
        const uint32_t off = e.lid - fl.first[g];
        if (off >= (1u << p.lmc))
          throw ParseError(file.filename, e.line,
                           fmt("LID 0x%04x is path %u of ", e.lid, off + 1) +
                               fabric.port_name(it->second.first, it->second.second) + ", which has LMC " +
                               std::to_string(p.lmc) + " in the fabric");
        lid = static_cast<Lid>(p.base_lid + off);
      }
      res.lfts.set(s, lid, e.port);
    }
  }
  for (int s : fabric.switches())
    if (!seen[static_cast<size_t>(s)])
      res.warnings.push_back("switch " + fabric.node_name(s) + " is not in " + file.filename + ": it gets no routes");
  // dump_fts / ibroute never read the LFT block of LID LinearFDBTop when it is a multiple of 64
  std::vector<std::string> unread;
  std::vector<Lid> lids;
  for (const LftTable& t : file.tables)
    if (Lid l = dump_fts_unread_lid(t)) {
      if (unread.size() < 3) unread.push_back(file.filename + ":" + std::to_string(t.line) + " (" + t.desc + ")");
      if (std::find(lids.begin(), lids.end(), l) == lids.end()) lids.push_back(l);
    }
  if (!unread.empty()) {
    size_t n = 0;
    for (const LftTable& t : file.tables) n += dump_fts_unread_lid(t) ? 1 : 0;
    std::string w = "LID";
    if (lids.size() > 1) w += "s";
    for (size_t i = 0; i < lids.size(); i++) w += (i ? ", " : " ") + std::to_string(lids[i]);
    w += " missing from " + std::to_string(n) + " dump_fts table(s) (";
    for (size_t i = 0; i < unread.size(); i++) w += (i ? ", " : "") + unread[i];
    if (n > unread.size()) w += ", ...";
    w += "): the range ends on LinearFDBTop, a multiple of 64, and infiniband-diags' dump_fts/ibroute "
         "skip that LFT block; the entry is unknown, not absent in the switch (docs/HARNESS.md)";
    res.warnings.push_back(w);
  }
  return res;
}

// ------------------------------------------------------------------ generation

LftFile make_lft_file(const Fabric& f, const Lfts& lfts, LftFormat style) {
  if (style == LftFormat::Auto) style = LftFormat::Opensm;
  LftFile file;
  file.format = style;
  std::vector<int> sws = f.switches();
  if (style == LftFormat::Opensm)
    std::stable_sort(sws.begin(), sws.end(), [&](int a, int b) { return __builtin_bswap64(f.node(a).guid) < __builtin_bswap64(f.node(b).guid); });
  const uint32_t hi = f.max_lid();
  auto owner_guid = [&](const EndPort& e) { return e.port == 0 ? f.node(e.node).guid : f.node(e.node).port(e.port).guid; };
  for (int s : sws) {
    const Node& n = f.node(s);
    if (!n.guid) throw FabricError("switch " + f.node_name(s) + " has no GUID: cannot write an LFT file for it");
    LftTable t;
    t.style = style;
    t.guid = n.guid;
    t.desc = escape_name(n.desc);  // control characters never go into the file raw
    t.addr = "Lid " + std::to_string(n.port(0).base_lid);
    t.lid_lo = 0;
    t.lid_hi = hi;
    t.hex_range = style == LftFormat::DumpFts;
    int count = 0;
    int last_port_lid = 0, base_port_lid = 0;
    uint64_t pg = 0;
    for (uint32_t l = 0; l <= hi; l++) {
      const uint8_t port = lfts.num_nodes() > s ? lfts.get(s, static_cast<Lid>(l)) : kNoPath;
      if (port > n.num_ports) continue;  // includes kNoPath: neither tool prints them
      LftEntry e;
      e.lid = static_cast<Lid>(l);
      e.port = port;
      auto own = f.owner(static_cast<Lid>(l));
      if (style == LftFormat::Opensm) {
        e.info = own ? fmt(" # %s portguid 0x%016" PRIx64 ": '%s'", ib_node_type_str(f.node(own->node).type),
                           owner_guid(*own), escape_name(f.node(own->node).desc).c_str())
                     : std::string(" # unknown node and type");
      } else if (style == LftFormat::DumpFts) {
        if (static_cast<int>(l) <= last_port_lid) {
          e.info = pg ? fmt(" : (path #%d out of %d: portguid 0x%016" PRIx64 ")", static_cast<int>(l) - base_port_lid + 1,
                            last_port_lid - base_port_lid + 1, pg)
                      : fmt(" : (path #%d out of %d)", static_cast<int>(l) - base_port_lid + 1,
                            last_port_lid - base_port_lid + 1);
        } else if (!own) {
          pg = 0;
          e.info = " : (node info not available fabric scan)";
        } else {
          pg = owner_guid(*own);
          if (own->lmc > 0) {
            base_port_lid = own->base_lid;
            last_port_lid = own->last_lid();
          }
          e.info = fmt(" : (%s portguid 0x%016" PRIx64 ": '%s')", ib_node_type_str(f.node(own->node).type), pg,
                       escape_name(f.node(own->node).desc).c_str());
        }
      } else if (own) {  // minimal: portguid comment so OpenSM can remap LIDs
        e.info = fmt(" # portguid 0x%016" PRIx64, owner_guid(*own));
      }
      scan_info(e);
      t.entries.push_back(std::move(e));
      count++;
    }
    if (style == LftFormat::Opensm) t.footer = fmt("%u lids dumped", hi);
    else if (style == LftFormat::DumpFts) t.footer = fmt("%d valid lids dumped ", count);
    else t.header = header_minimal(t);
    file.tables.push_back(std::move(t));
  }
  return file;
}

// ------------------------------------------------------------------ streaming generation (reference)

// The streaming writer of issue 15 (one hex4/dec3/put per field of every entry), kept as the
// reference of write_lfts (lft_write.cpp): lft_write_test compares the two, bench_lftwrite times them.
void write_lfts_reference(const Fabric& f, const Lfts& lfts, LftFormat style, TextOut& out) {
  if (style == LftFormat::Auto) style = LftFormat::Opensm;
  const std::vector<int> sws = detail::lft_switch_order(f, style);
  const uint32_t hi = f.max_lid();
  auto owner_guid = [&](const EndPort& e) { return e.port == 0 ? f.node(e.node).guid : f.node(e.node).port(e.port).guid; };
  // Per-LID destination comments (they do not depend on the switch, except dump_fts' LMC
  // "path #k" lines, which follow the entries the switch prints: cached for the usual state).
  std::vector<std::optional<EndPort>> own(static_cast<size_t>(hi) + 1);
  for (uint32_t l = 0; l <= hi; l++) own[l] = f.owner(static_cast<Lid>(l));
  std::vector<std::string> info(static_cast<size_t>(hi) + 1);
  struct PathState {
    int base = 0, last = 0;
    uint64_t pg = 0;
    bool operator==(const PathState&) const = default;
  };
  std::vector<PathState> canon;  // dump_fts: the state before LID l when every LID is printed
  auto path_info = [](int l, const PathState& st) {
    return st.pg ? fmt(" : (path #%d out of %d: portguid 0x%016" PRIx64 ")", l - st.base + 1, st.last - st.base + 1, st.pg)
                 : fmt(" : (path #%d out of %d)", l - st.base + 1, st.last - st.base + 1);
  };
  // The dump_fts state machine of make_lft_file for one printed LID; returns its comment.
  auto step = [&](uint32_t l, PathState& st) -> std::string {
    if (static_cast<int>(l) <= st.last) return path_info(static_cast<int>(l), st);
    if (!own[l]) {
      st.pg = 0;
      return " : (node info not available fabric scan)";
    }
    st.pg = owner_guid(*own[l]);
    if (own[l]->lmc > 0) {
      st.base = own[l]->base_lid;
      st.last = own[l]->last_lid();
    }
    return fmt(" : (%s portguid 0x%016" PRIx64 ": '%s')", ib_node_type_str(f.node(own[l]->node).type), st.pg,
               escape_name(f.node(own[l]->node).desc).c_str());  // as make_lft_file: no raw control characters
  };
  if (style == LftFormat::DumpFts) {
    canon.resize(static_cast<size_t>(hi) + 1);
    PathState st;
    for (uint32_t l = 0; l <= hi; l++) {
      canon[l] = st;
      info[l] = step(l, st);
    }
  } else {
    for (uint32_t l = 0; l <= hi; l++) {
      const auto& o = own[l];
      if (style == LftFormat::Opensm)
        info[l] = o ? fmt(" # %s portguid 0x%016" PRIx64 ": '%s'", ib_node_type_str(f.node(o->node).type), owner_guid(*o),
                          escape_name(f.node(o->node).desc).c_str())  // as make_lft_file: no raw control characters
                    : std::string(" # unknown node and type");
      else if (o)
        info[l] = fmt(" # portguid 0x%016" PRIx64, owner_guid(*o));
    }
  }
  for (int s : sws) {
    const Node& n = f.node(s);
    LftTable t;  // header fields only
    t.guid = n.guid;
    t.desc = escape_name(n.desc);
    t.addr = "Lid " + std::to_string(n.port(0).base_lid);
    t.lid_lo = 0;
    t.lid_hi = hi;
    if (style == LftFormat::Opensm) out.put(header_opensm(t));
    else if (style == LftFormat::DumpFts) out.put(header_dumpfts(t));
    else out.put(header_minimal(t));
    out.put('\n');
    if (style == LftFormat::DumpFts) {
      out.put(kDumpFtsCol1);
      out.put('\n');
      out.put(kDumpFtsCol2);
      out.put('\n');
    }
    const std::vector<uint8_t>* tab = lfts.num_nodes() > s ? &lfts.table(s) : nullptr;
    PathState st;
    int count = 0;
    for (uint32_t l = 0; l <= hi; l++) {
      const uint8_t port = tab && l < tab->size() ? (*tab)[l] : kNoPath;
      if (port > n.num_ports) continue;  // includes kNoPath: neither tool prints them
      out.hex4(l);
      out.put(' ');
      out.dec3(port);
      if (style == LftFormat::DumpFts && !(st == canon[l])) {
        out.put(step(l, st));
      } else {
        if (style == LftFormat::DumpFts && l < hi) st = canon[l + 1];  // same state, same step
        out.put(info[l]);
      }
      out.put('\n');
      count++;
    }
    if (style == LftFormat::Opensm) out.printf("%u lids dumped\n", hi);
    else if (style == LftFormat::DumpFts) out.printf("%d valid lids dumped \n", count);
  }
}

}  // namespace ftroute

// ------------------------------------------------------------------ loading

#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/netfile.hpp"

namespace ftroute {

Fabric read_fabric_file(const std::string& path, uint8_t lmc) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, "cannot open file");
  char c = 0;
  while (in.get(c) && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
  }
  if (c == '{') return read_subnet_lst(path, lmc);
  return read_net_file(path);
}

LoadedRouting load_routing(const std::string& fabric_path, const std::string& lfts_path, LftFormat format,
                           const std::string& sl_path, const std::string& sl2vl_path, bool lids_from_file,
                           uint8_t lmc) {
  LoadedRouting lr{read_fabric_file(fabric_path, lmc), {}, {}, false, {}};
  const bool adopt = lids_from_file || lr.fabric.max_lid() == 0;
  {
    int adopted = 0;
    if (auto fast = fast_read_map_lfts(lfts_path, format, lr.fabric, adopt, &adopted)) {
      lr.file.filename = lfts_path;  // the fast reader keeps no text
      lr.lids_from_file = adopt;
      lr.routing.engine = lfts_path;
      lr.routing.lfts = std::move(fast->lfts);
      lr.warnings = std::move(fast->warnings);
      read_sl_files(lr.fabric, sl_path, sl2vl_path, lr.routing, &lr.warnings);
      return lr;
    }
  }
  lr.file = read_lft_file(lfts_path, format);
  if (adopt) {  // (a fast pass that gave up may have set LIDs: adopt_lids resets them all)
    if (adopt_lids(lr.file, lr.fabric) == 0)
      throw ParseError(lfts_path, 0,
                       "no portguid comments to take LIDs from, and " + fabric_path +
                           " has no LIDs: give a fabric with LIDs (e.g. ibnetdiscover output) or LFTs "
                           "with destination comments (opensm-lfts.dump, dump_fts)");
    lr.lids_from_file = true;
  }
  LftMapResult m = map_lfts(lr.file, lr.fabric);
  lr.routing.engine = lfts_path;
  lr.routing.lfts = std::move(m.lfts);
  lr.warnings = std::move(m.warnings);
  read_sl_files(lr.fabric, sl_path, sl2vl_path, lr.routing, &lr.warnings);
  return lr;
}

void read_sl_files(const Fabric& fabric, const std::string& sl_path, const std::string& sl2vl_path, Routing& r,
                   std::vector<std::string>* warnings) {
  if (!sl_path.empty()) {
    const std::string text = read_input_file(sl_path, table_input_limits());
    r.path_sl = parse_path_sl(text, sl_path, fabric);
    const PathSlDumpEnd end = path_sl_dump_end(text);
    if (warnings && end.found && (end.missing > 0 || end.disagree > 0))
      warnings->push_back(sl_path + ": the path-SL dump counts " + std::to_string(end.missing) + " of " +
                          std::to_string(end.pairs) + " pairs without path parameters in OpenSM's SA (judged on SL 0 here) and " +
                          std::to_string(end.disagree) + " CA ports whose SL differs from their CA's first port");
  }
  if (!sl2vl_path.empty()) {
    r.sl2vl = read_sl2vl(sl2vl_path, fabric);
    int maxvl = 0;
    for (auto& [k, t] : r.sl2vl.raw())
      for (uint8_t v : t) maxvl = std::max<int>(maxvl, v);
    r.num_vls = maxvl + 1;
  }
}

}  // namespace ftroute
