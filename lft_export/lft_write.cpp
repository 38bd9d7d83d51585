// write_lfts: the streaming LFT writer (issue 29 item 4). The text of an entry depends on its
// switch only through the port: "0xLLLL PPP<destination comment>\n". So every LID's whole line is
// rendered once per dump into one array, and a switch's table is written by copying those lines
// into TextOut's buffer (in 32-byte blocks; the array and the buffer have room for the over-copy)
// and putting the three port digits in from a table: no formatting per entry. dump_fts' LMC lines
// ("path #k out of n") follow the entries the switch printed; as long as it printed every LID of
// the range (the usual case) they are the pre-rendered ones, otherwise they are formatted as
// make_lft_file does. Same bytes as write_lfts_reference (lft_io.cpp) and as
// write_lft_file(make_lft_file(...)): tests/unit/lft_export/lft_write_test.cpp, stream_writer_test.cpp.
#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/lft_io.hpp"
#include "lft_text.hpp"
#include "strfmt.hpp"

namespace ftroute {

namespace {

using detail::fmt;

constexpr size_t kPortAt = 7;  // "0xLLLL " (a Lid has at most 4 hex digits), then the port
constexpr size_t kBlock = 32;  // lines are copied in blocks of kBlock bytes

inline void copy_line(char* dst, const char* src, size_t n) {
  for (size_t i = 0; i < n; i += kBlock) std::memcpy(dst + i, src + i, kBlock);
}

// "000".."255", 4 bytes apart.
struct PortDigits {
  char d[256][4];
  PortDigits() {
    for (int p = 0; p < 256; p++) std::snprintf(d[p], sizeof d[p], "%03d", p);
  }
};

// The line of every LID, port digits "000", back to back, kBlock bytes of padding at the end.
struct Lines {
  struct Span {
    uint32_t off = 0, len = 0;
  };
  std::string text;
  std::vector<Span> at;
  size_t longest = 0;
  bool fits = true;  // every offset fits 32 bits (false only for absurdly long node names)

  void add(uint32_t lid, std::string_view comment) {
    char h[16];
    std::snprintf(h, sizeof h, "0x%04x 000", lid);
    const size_t off = text.size();
    text.append(h, kPortAt + 3).append(comment).push_back('\n');
    const size_t len = text.size() - off;
    if (text.size() > std::numeric_limits<uint32_t>::max()) fits = false;
    at.push_back({static_cast<uint32_t>(off), static_cast<uint32_t>(len)});
    longest = std::max(longest, len);
  }
  void pad() { text.append(kBlock, '\0'); }
};

// A write position in TextOut's buffer. Within [p, lim] a line of up to `line` bytes (+ the
// over-copy) fits and the chunk is not yet full; refill() hands the bytes written to TextOut
// (which flushes a full chunk) and asks for room again.
struct Cursor {
  TextOut& out;
  size_t need;
  char* start = nullptr;
  char* p = nullptr;
  char* lim = nullptr;
  Cursor(TextOut& o, size_t line) : out(o), need(line + kBlock) { refill(); }
  void refill() {
    out.wrote(static_cast<size_t>(p - start));
    start = p = out.room(need);
    lim = p + std::min(out.free_bytes() - need, out.chunk_left() - 1);
  }
  // Any text (headers, footers, the rare formatted dump_fts line).
  void put(std::string_view s) {
    if (s.size() + kBlock > need) {
      out.wrote(static_cast<size_t>(p - start));
      p = start;
      out.put(s);
      refill();
      return;
    }
    if (p > lim) refill();
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  void done() {
    out.wrote(static_cast<size_t>(p - start));
    p = start;
  }
};

struct PathState {
  int base = 0, last = 0;
  uint64_t pg = 0;
  bool operator==(const PathState&) const = default;
};

}  // namespace

void write_lfts(const Fabric& f, const Lfts& lfts, LftFormat style, TextOut& out) {
  if (style == LftFormat::Auto) style = LftFormat::Opensm;
  const std::vector<int> sws = detail::lft_switch_order(f, style);
  const uint32_t hi = f.max_lid();
  auto owner_guid = [&](const EndPort& e) { return e.port == 0 ? f.node(e.node).guid : f.node(e.node).port(e.port).guid; };
  std::vector<std::optional<EndPort>> own(static_cast<size_t>(hi) + 1);
  for (uint32_t l = 0; l <= hi; l++) own[l] = f.owner(static_cast<Lid>(l));

  // dump_fts: the comment of a printed LID depends on the LMC state left by the LIDs printed
  // before it (make_lft_file's state machine); canon[l] = that state when every LID before l was
  // printed, stable[l] = skipping LID l leaves the state canonical for l + 1.
  auto step = [&](uint32_t l, PathState& st) -> std::string {
    if (static_cast<int>(l) <= st.last)
      return st.pg ? fmt(" : (path #%d out of %d: portguid 0x%016" PRIx64 ")", static_cast<int>(l) - st.base + 1,
                         st.last - st.base + 1, st.pg)
                   : fmt(" : (path #%d out of %d)", static_cast<int>(l) - st.base + 1, st.last - st.base + 1);
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
               escape_name(f.node(own[l]->node).desc).c_str());
  };
  Lines lines;
  lines.at.reserve(static_cast<size_t>(hi) + 1);
  std::vector<PathState> canon;
  std::vector<uint8_t> stable;
  if (style == LftFormat::DumpFts) {
    canon.resize(static_cast<size_t>(hi) + 2);
    stable.resize(static_cast<size_t>(hi) + 1);
    PathState st;
    for (uint32_t l = 0; l <= hi; l++) {
      canon[l] = st;
      lines.add(l, step(l, st));
    }
    canon[hi + 1] = st;
    for (uint32_t l = 0; l <= hi; l++) stable[l] = canon[l] == canon[l + 1];
  } else {
    for (uint32_t l = 0; l <= hi; l++) {
      const auto& o = own[l];
      if (style == LftFormat::Opensm)
        lines.add(l, o ? fmt(" # %s portguid 0x%016" PRIx64 ": '%s'", ib_node_type_str(f.node(o->node).type),
                             owner_guid(*o), escape_name(f.node(o->node).desc).c_str())
                       : std::string(" # unknown node and type"));
      else
        lines.add(l, o ? fmt(" # portguid 0x%016" PRIx64, owner_guid(*o)) : std::string());
    }
  }
  if (!lines.fits) {  // names of gigabytes: not worth a second layout
    write_lfts_reference(f, lfts, style, out);
    return;
  }
  lines.pad();
  static const PortDigits digits;
  const std::string opensm_footer = fmt("%u lids dumped\n", hi);

  Cursor c(out, lines.longest);
  const char* text = lines.text.data();
  const Lines::Span* at = lines.at.data();
  for (int s : sws) {
    const Node& n = f.node(s);
    LftTable t;  // header fields only
    t.guid = n.guid;
    t.desc = escape_name(n.desc);
    t.addr = "Lid " + std::to_string(n.port(0).base_lid);
    t.lid_lo = 0;
    t.lid_hi = hi;
    if (style == LftFormat::Opensm) c.put(detail::header_opensm(t) + '\n');
    else if (style == LftFormat::DumpFts)
      c.put(detail::header_dumpfts(t) + '\n' + detail::kDumpFtsCol1 + '\n' + detail::kDumpFtsCol2 + '\n');
    else c.put(detail::header_minimal(t) + '\n');

    const std::vector<uint8_t>* tab = lfts.num_nodes() > s ? &lfts.table(s) : nullptr;
    const uint32_t end = tab ? static_cast<uint32_t>(std::min<size_t>(tab->size(), size_t{hi} + 1)) : 0;
    const uint8_t* ports = tab ? tab->data() : nullptr;
    const unsigned np = static_cast<unsigned>(n.num_ports);
    // LIDs from `end` on have no entry (kNoPath): nothing printed, and in dump_fts no state to carry
    if (style != LftFormat::DumpFts) {
      char* p = c.p;
      char* lim = c.lim;
      for (uint32_t l = 0; l < end; l++) {
        const unsigned port = ports[l];
        if (port > np) continue;  // includes kNoPath: neither tool prints them
        if (p > lim) {
          c.p = p;
          c.refill();
          p = c.p, lim = c.lim;
        }
        const Lines::Span sp = at[l];
        copy_line(p, text + sp.off, sp.len);
        std::memcpy(p + kPortAt, digits.d[port], 3);
        p += sp.len;
      }
      c.p = p;
      if (style == LftFormat::Opensm) c.put(opensm_footer);
      continue;
    }
    int count = 0;
    bool canonical = true;  // st == canon[l]
    PathState st;
    for (uint32_t l = 0; l < end; l++) {
      const unsigned port = ports[l];
      const bool printed = port <= np;
      if (!canonical && st == canon[l]) canonical = true;
      if (!canonical) {
        if (!printed) continue;
        std::string line(text + at[l].off, kPortAt);
        line.append(digits.d[port], 3).append(step(l, st)).push_back('\n');
        c.put(line);
        count++;
        continue;
      }
      if (!printed) {
        if (!stable[l]) canonical = false, st = canon[l];
        continue;
      }
      if (c.p > c.lim) c.refill();
      const Lines::Span sp = at[l];
      copy_line(c.p, text + sp.off, sp.len);
      std::memcpy(c.p + kPortAt, digits.d[port], 3);
      c.p += sp.len;
      count++;
    }
    c.put(fmt("%d valid lids dumped \n", count));
  }
  c.done();
}

std::string write_lfts(const Fabric& fabric, const Lfts& lfts, LftFormat style) {
  std::string s;
  TextOut out(TextOut::to_string(s));
  write_lfts(fabric, lfts, style, out);
  out.flush();
  return s;
}

}  // namespace ftroute
