// Fast LFT reader (issue 15): an LFT dump straight into Lfts, see read_map_lfts in lft_io.hpp.
//
// One pass over the file in 8 MiB read() blocks: no LftFile, no string per line, no per-entry map
// insert. A table header line is parsed by parse_lft itself (one line, so its style and format
// checks are the full reader's); entry lines are parsed in place. The rules are parse_lft +
// adopt_lids + map_lfts for well-formed files. The moment anything is not plainly well formed
// (any line parse_lft would reject or keep verbatim in an odd way, binary bytes, a long line, an
// unknown GUID, a second table for a switch, a conflicting duplicate LID, an LMC range that does
// not fit...), the fast reader gives up and the caller runs the full reader, which reports exactly
// what it always reported (file:line). So on bad input the errors are the full reader's, and on
// good input the result is the same Lfts and the same warnings (tests/unit/lft_export/lft_fast_test.cpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "ftroute/error.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/lft_io.hpp"
#include "strfmt.hpp"

namespace ftroute {

namespace {

using detail::fmt;

struct GiveUp {};  // the full reader takes over

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Unsigned number at p (hex with 0x/0X if allow_hex, else decimal), like lft_io's take_number.
inline bool number(const char*& p, const char* e, uint64_t& v, bool allow_hex = true) {
  int base = 10;
  const char* q = p;
  if (allow_hex && e - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) base = 16, q += 2;
  const char* start = q;
  v = 0;
  for (; q < e; q++) {
    const char c = *q;
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else break;
    if (v > (UINT64_MAX >> 4)) return false;
    v = v * static_cast<uint64_t>(base) + d;
  }
  if (q == start) return false;
  p = q;
  return true;
}

inline bool starts(const char* p, const char* e, const char* lit, size_t n) {
  return static_cast<size_t>(e - p) >= n && std::memcmp(p, lit, n) == 0;
}

inline const char* find(const char* p, const char* e, const char* lit, size_t n) {
  if (static_cast<size_t>(e - p) < n) return nullptr;
  const void* r = memmem(p, static_cast<size_t>(e - p), lit, n);
  return static_cast<const char*>(r);
}

struct TableInfo {
  int line = 0;
  std::string desc;
  bool hex_range = false;
  uint32_t lid_lo = 0, lid_hi = 0;
  bool has_hi = false;
};

class FastReader {
 public:
  FastReader(const std::string& path, LftFormat format, const Fabric& fabric, bool adopt)
      : path_(path), format_(format), f_(fabric), adopt_(adopt) {
    for (int i = 0; i < f_.size(); i++) {
      const Node& n = f_.node(i);
      if (n.is_switch()) {
        if (n.guid) guid_index_.emplace(n.guid, std::make_pair(i, 0));
      } else {
        for (int p = 1; p <= n.num_ports; p++)
          if (n.port(p).guid) guid_index_.emplace(n.port(p).guid, std::make_pair(i, p));
      }
    }
    lid_guid_.assign(kMaxUnicastLid + 1u, 0);
    lid_gid_.assign(kMaxUnicastLid + 1u, -1);
    dup_table_.assign(kMaxUnicastLid + 1u, 0);
    dup_line_.assign(kMaxUnicastLid + 1u, 0);
    dup_port_.assign(kMaxUnicastLid + 1u, 0);
    seen_.assign(static_cast<size_t>(f_.size()), 0);
  }

  // Remap mode: firsts_ known from an earlier pass (first_final).
  void run(bool first_final) {
    first_final_ = first_final;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw GiveUp{};
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat sb;
    if (::fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0 ||
        static_cast<uint64_t>(sb.st_size) > table_input_limits().max_bytes)
      throw GiveUp{};
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    constexpr size_t kBlock = size_t{8} << 20;
    std::vector<char> buf(kBlock + 8192);
    size_t have = 0;  // bytes of an unfinished line carried over at buf[0]
    int ln = 0;
    for (;;) {
      const ssize_t r = ::read(fd, buf.data() + have, kBlock);
      if (r < 0) throw GiveUp{};
      const size_t total = have + static_cast<size_t>(r);
      const char* p = buf.data();
      const char* end = buf.data() + total;
      for (;;) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
        if (!nl) break;
        line(p, nl, ++ln);
        p = nl + 1;
      }
      const size_t rest = static_cast<size_t>(end - p);
      if (rest > 4096) throw GiveUp{};  // a line the full reader rejects
      if (r == 0) {
        if (rest) line(p, end, ++ln);  // last line without a newline
        break;
      }
      std::memmove(buf.data(), p, rest);
      have = rest;
    }
    if (tables_.empty()) throw GiveUp{};
  }

  // After run(): finishes adopt / checks; fills res. Returns the number of ports given LIDs in
  // adopt mode.
  int finish(Fabric* fabric_rw, LftMapResult& res) {
    int adopted = 0;
    if (adopt_) {
      // adopt_lids: every GUID of the file gets its first LID and the LMC of its range
      Fabric& fab = *fabric_rw;
      for (int i = 0; i < fab.size(); i++) {
        Node& n = fab.node(i);
        for (int p = 0; p <= n.num_ports; p++) n.port(p).base_lid = 0, n.port(p).lmc = 0;
      }
      int last_node = -1, last_port = 0;
      Lid last_lo = 0;
      uint8_t last_lmc = 0;
      for (size_t g = 0; g < gids_.size(); g++) {
        const GuidLids& gl = gids_[g];
        if (!gl.used) continue;
        const uint32_t n = gl.last - gl.first + 1;
        uint8_t lmc = 0;
        while ((1u << lmc) < n) lmc++;
        if (lmc > 7 || gl.first % (1u << lmc) != 0 || gl.first == 0) throw GiveUp{};
        Port& pt = fab.node(gl.node).port(gl.port);
        pt.base_lid = static_cast<Lid>(gl.first);
        pt.lmc = lmc;
        last_node = gl.node, last_port = gl.port, last_lo = static_cast<Lid>(gl.first), last_lmc = lmc;
        adopted++;
      }
      if (adopted == 0) throw GiveUp{};
      try {
        fab.set_lid(last_node, last_port, last_lo, last_lmc);  // one re-index for all
        fab.validate();
      } catch (const Error&) {
        throw GiveUp{};
      }
      // Tables as map_lfts sizes them after adopt_lids: max LID + 1, or up to the highest entry.
      const size_t want = static_cast<size_t>(fab.max_lid()) + 1;
      for (int s : fab.switches()) {
        if (s >= lfts.num_nodes()) continue;
        std::vector<uint8_t>& tab = lfts.table(s);
        size_t h = tab.size();
        while (h > 0 && tab[h - 1] == kNoPath) h--;
        tab.resize(std::max(want, h), kNoPath);
      }
    } else if (!first_final_) {
      for (const GuidLids& gl : gids_)
        if (gl.first_moved) throw GiveUp{};  // caller re-runs with the final firsts
    }
    res.warnings = dup_warnings_;
    res.warnings.insert(res.warnings.end(), map_warnings_.begin(), map_warnings_.end());
    for (int s : f_.switches())
      if (!seen_[static_cast<size_t>(s)])
        res.warnings.push_back("switch " + f_.node_name(s) + " is not in " + path_ + ": it gets no routes");
    // dump_fts / ibroute never read the LFT block of LID LinearFDBTop when it is a multiple of 64
    std::vector<std::string> unread;
    std::vector<Lid> lids;
    size_t nun = 0;
    for (const TableInfo& t : tables_) {
      if (!t.hex_range || t.lid_hi == 0 || t.lid_hi % 64 != 0 || t.lid_lo > t.lid_hi || t.has_hi) continue;
      nun++;
      if (unread.size() < 3) unread.push_back(path_ + ":" + std::to_string(t.line) + " (" + t.desc + ")");
      const Lid l = static_cast<Lid>(t.lid_hi);
      if (std::find(lids.begin(), lids.end(), l) == lids.end()) lids.push_back(l);
    }
    if (!unread.empty()) {
      std::string w = "LID";
      if (lids.size() > 1) w += "s";
      for (size_t i = 0; i < lids.size(); i++) w += (i ? ", " : " ") + std::to_string(lids[i]);
      w += " missing from " + std::to_string(nun) + " dump_fts table(s) (";
      for (size_t i = 0; i < unread.size(); i++) w += (i ? ", " : "") + unread[i];
      if (nun > unread.size()) w += ", ...";
      w += "): the range ends on LinearFDBTop, a multiple of 64, and infiniband-diags' dump_fts/ibroute "
           "skip that LFT block; the entry is unknown, not absent in the switch (docs/HARNESS.md)";
      res.warnings.push_back(w);
    }
    return adopted;
  }

  Lfts lfts;
  std::unordered_map<uint64_t, uint32_t> final_first;  // remap pass 2

 private:
  struct GuidLids {
    uint64_t guid = 0;
    int node = -1, port = 0;
    uint32_t first = 0, last = 0;
    bool used = false, first_moved = false;
  };

  void line(const char* b, const char* e, int ln) {
    if (e - b > 4096) throw GiveUp{};
    // One scan: binary data (the full reader names it) and where the keywords start.
    kw_dumped_ = kw_guid_ = kw_path_ = nullptr;
    for (const char* q = b; q < e; q++) {
      const unsigned char c = static_cast<unsigned char>(*q);
      if (c < 0x20 || c == 0x7f) {
        if (c == '\t' || c == '\r' || c == '\v' || c == '\f') continue;
        throw GiveUp{};
      }
      if (c == 'l') {
        if (!kw_dumped_ && starts(q, e, "lids dumped", 11)) kw_dumped_ = q;
      } else if (c == 'p') {
        if (!kw_guid_ && starts(q, e, "portguid 0x", 11)) kw_guid_ = q;
      } else if (c == '(') {
        if (!kw_path_ && starts(q, e, "(path #", 7)) kw_path_ = q;
      }
    }
    const char* s = b;
    const char* t = e;
    while (s < t && is_blank(*s)) s++;
    while (t > s && (is_blank(t[-1]) || t[-1] == '\r')) t--;
    if (s == t || *s == '#') return;
    // parse_lft's order: multicast, header, column header, footer ("lids dumped" anywhere), entry
    if (starts(s, t, "Multicast mlids", 15)) throw GiveUp{};
    if (starts(s, t, "Unicast lids", 12)) {
      header(b, e, ln);
      return;
    }
    if (starts(s, t, "Lid  Out", 8) || starts(s, t, "Port     Info", 13) || starts(s, t, "Port Info", 9)) {
      if (!cur_ || closed_ || entries_in_table_) throw GiveUp{};
      return;
    }
    if (kw_dumped_ && kw_dumped_ >= s && kw_dumped_ + 11 <= t) {
      const char* q = s;
      uint64_t v;
      if (!number(q, t, v, false) || !cur_ || closed_) throw GiveUp{};
      // exactly "<n> lids dumped" / "<n> valid lids dumped"; anything else: the full reader's error
      const std::string_view rest(q, static_cast<size_t>(t - q));
      if (rest != " lids dumped" && rest != " valid lids dumped") throw GiveUp{};
      closed_ = true;
      return;
    }
    if (starts(s, t, "0x", 2) || starts(s, t, "0X", 2)) {
      entry(s, e, ln);
      return;
    }
    throw GiveUp{};  // anything else: the full reader's message
  }

  void header(const char* b, const char* e, int ln) {
    // The full reader on this one line: same style detection and format check.
    LftFile one;
    try {
      one = parse_lft(std::string_view(b, static_cast<size_t>(e - b)), path_, format_);
    } catch (const Error&) {
      throw GiveUp{};
    }
    if (one.tables.size() != 1) throw GiveUp{};
    const LftTable& t = one.tables.front();
    TableInfo ti;
    ti.line = ln;
    ti.desc = t.desc;
    ti.hex_range = t.hex_range;
    ti.lid_lo = t.lid_lo;
    ti.lid_hi = t.lid_hi;
    tables_.push_back(ti);
    table_no_++;
    cur_ = true;
    closed_ = false;
    entries_in_table_ = 0;
    prev_guid_ = 0;
    // map_lfts: the switch by GUID, else by a unique description (warning)
    std::optional<int> sw = f_.find_guid(t.guid);
    if (sw && !f_.node(*sw).is_switch()) throw GiveUp{};
    if (!sw && !t.desc.empty()) {
      std::optional<int> m;
      int matches = 0;
      for (int s : f_.switches())
        if (f_.node(s).desc == t.desc || f_.node(s).id == t.desc) m = s, matches++;
      if (matches != 1) throw GiveUp{};
      sw = m;
      map_warnings_.push_back(path_ + ":" + std::to_string(ln) + ": switch GUID " + fmt("0x%016" PRIx64, t.guid) +
                              " not in the fabric, matched " + quote_name(t.desc) + " by description");
    }
    if (!sw) throw GiveUp{};
    sw_ = *sw;
    if (seen_[static_cast<size_t>(sw_)]) throw GiveUp{};
    seen_[static_cast<size_t>(sw_)] = 1;
    np_ = f_.node(sw_).num_ports;
    if (lfts.num_nodes() == 0) lfts = Lfts(f_);
    tab_ = &lfts.table(sw_);
  }

  // Dense id of a destination GUID (must be in the fabric).
  int gid_of(uint64_t g) {
    auto it = gid_map_.find(g);
    if (it != gid_map_.end()) return it->second;
    auto f = guid_index_.find(g);
    if (f == guid_index_.end()) throw GiveUp{};
    GuidLids gl;
    gl.guid = g;
    gl.node = f->second.first;
    gl.port = f->second.second;
    gids_.push_back(gl);
    const int id = static_cast<int>(gids_.size() - 1);
    gid_map_.emplace(g, id);
    return id;
  }

  void entry(const char* s, const char* e, int ln) {
    if (!cur_ || closed_) throw GiveUp{};
    const char* p = s;
    uint64_t lid, port;
    if (!number(p, e, lid) || lid > kMaxUnicastLid) throw GiveUp{};
    if (p == e || !is_blank(*p)) throw GiveUp{};
    while (p < e && is_blank(*p)) p++;
    if (!number(p, e, port, false) || port > 255) throw GiveUp{};
    if (p < e && !is_blank(*p) && *p != '\r') throw GiveUp{};
    // the info part: portguid and "(path #k"
    uint64_t pg = 0;
    int pi = 0;
    // first occurrences in the line; parse_lft searches the text after the port (p), which
    // cannot hold an earlier one than the line does unless the match overlaps p
    const char* gk = kw_guid_ && kw_guid_ >= p ? kw_guid_ : (kw_guid_ ? find(p, e, "portguid 0x", 11) : nullptr);
    const char* h = kw_path_ && kw_path_ >= p ? kw_path_ : (kw_path_ ? find(p, e, "(path #", 7) : nullptr);
    if (gk) {
      const char* q = gk + 9;
      uint64_t v;
      if (number(q, e, v)) pg = v;
    }
    if (h) {
      const char* q = h + 7;
      uint64_t v;
      if (number(q, e, v, false)) pi = static_cast<int>(v);
      if (pi < 0) pi = -pi - 1;  // as map_lfts decodes the verbatim marker
    }
    const Lid l = static_cast<Lid>(lid);
    const uint8_t pt = static_cast<uint8_t>(port);
    // duplicate LID in one table
    if (dup_table_[l] == table_no_) {
      if (dup_port_[l] != pt) throw GiveUp{};
      dup_warnings_.push_back(path_ + ":" + std::to_string(ln) + fmt(": LID 0x%04x listed twice", l) +
                              " (same port as line " + std::to_string(dup_line_[l]) + ")");
    }
    dup_table_[l] = table_no_;
    dup_line_[l] = ln;
    dup_port_[l] = pt;
    entries_in_table_++;
    TableInfo& ti = tables_.back();
    if (l == ti.lid_hi) ti.has_hi = true;
    // owner GUID (FileLids): a "path #k" line without a GUID belongs to the previous GUID
    const uint64_t g = pg ? pg : (pi > 1 ? prev_guid_ : 0);
    if (pg) prev_guid_ = pg;
    int gid = -1;
    if (g) {
      if (lid_guid_[l] == g) {
        gid = lid_gid_[l];
      } else {
        gid = gid_of(g);
        lid_guid_[l] = g;
        lid_gid_[l] = gid;
      }
      GuidLids& gl = gids_[static_cast<size_t>(gid)];
      if (!gl.used) {
        gl.used = true;
        gl.first = gl.last = l;
      } else {
        if (l < gl.first) gl.first = l, gl.first_moved = true;
        if (l > gl.last) gl.last = l;
      }
    }
    if (pt == kNoPath) return;
    if (pt > np_) throw GiveUp{};
    Lid dst = l;
    if (g && !adopt_) {
      const GuidLids& gl = gids_[static_cast<size_t>(gid)];
      const Port& prt = f_.node(gl.node).port(gl.port);
      if (!prt.base_lid) throw GiveUp{};
      uint32_t first = gl.first;
      if (first_final_) {
        auto it = final_first.find(g);
        if (it == final_first.end()) throw GiveUp{};
        first = it->second;
      }
      const uint32_t off = l - first;
      if (off >= (1u << prt.lmc)) throw GiveUp{};
      dst = static_cast<Lid>(prt.base_lid + off);
    }
    // Lfts::set without the bounds growth: tables are sized max_lid + 1 (grow if needed)
    if (dst >= tab_->size()) tab_->resize(static_cast<size_t>(dst) + 1, kNoPath);
    (*tab_)[dst] = pt;
  }

 public:
  void collect_firsts() {
    final_first.clear();
    for (const GuidLids& gl : gids_)
      if (gl.used) final_first[gl.guid] = gl.first;
  }
  void reset_for_pass2() {
    lfts = Lfts();
    tables_.clear();
    dup_warnings_.clear();
    map_warnings_.clear();
    std::fill(seen_.begin(), seen_.end(), 0);
    std::fill(dup_table_.begin(), dup_table_.end(), 0);
    table_no_ = 0;
    cur_ = closed_ = false;
  }

 private:
  std::string path_;
  LftFormat format_;
  const Fabric& f_;
  bool adopt_;
  bool first_final_ = false;
  std::unordered_map<uint64_t, std::pair<int, int>> guid_index_;
  std::unordered_map<uint64_t, int> gid_map_;
  std::vector<GuidLids> gids_;
  std::vector<uint64_t> lid_guid_;   // per LID: the GUID last seen on it, and its dense id
  std::vector<int> lid_gid_;
  std::vector<uint32_t> dup_table_;  // per LID: table number that listed it last
  std::vector<int> dup_line_;
  std::vector<uint8_t> dup_port_;
  std::vector<uint8_t> seen_;        // per node: a table was mapped onto it
  std::vector<TableInfo> tables_;
  std::vector<std::string> dup_warnings_, map_warnings_;
  uint32_t table_no_ = 0;
  bool cur_ = false, closed_ = false;
  int entries_in_table_ = 0;
  uint64_t prev_guid_ = 0;
  int sw_ = -1, np_ = 0;
  std::vector<uint8_t>* tab_ = nullptr;
  const char *kw_dumped_ = nullptr, *kw_guid_ = nullptr, *kw_path_ = nullptr;
};

}  // namespace

std::optional<LftMapResult> fast_read_map_lfts(const std::string& path, LftFormat format, Fabric& fabric, bool adopt,
                                               int* adopted) {
  if (std::getenv("FTROUTE_SLOW_LFT_READER")) return std::nullopt;  // the full reader (tests, bench)
  try {
    FastReader r(path, format, fabric, adopt);
    r.run(false);
    LftMapResult res;
    int n = 0;
    try {
      n = r.finish(&fabric, res);
    } catch (const GiveUp&) {
      if (adopt) throw;
      // a GUID's first LID came after entries mapped with a later one: second pass, final firsts
      r.collect_firsts();
      r.reset_for_pass2();
      r.run(true);
      n = r.finish(&fabric, res);
    }
    res.lfts = std::move(r.lfts);
    if (adopted) *adopted = n;
    return res;
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

}  // namespace ftroute

namespace ftroute {
std::optional<LftMapResult> fast_read_map_lfts(const std::string& path, LftFormat format, const Fabric& fabric) {
  return fast_read_map_lfts(path, format, const_cast<Fabric&>(fabric), false, nullptr);  // never writes without adopt
}
}  // namespace ftroute
