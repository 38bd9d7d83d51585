// Fast path of the .net reader (issue 15): the regular subset of the format, as `ftroute gen`,
// write_net() and hand-written fabrics in the same style use it, parsed in one pass over the
// text with string_views (no per-line allocation; node ids are the only strings built). Anything
// outside that subset - and every error - makes it decline (nullopt); parse_net() then runs the
// full parser (netfile.cpp) on the same text, so errors, file:line and messages are exactly the
// full parser's. tests/unit/fabric/netfile_fast_test.cpp checks both give the same Fabric.
//
// Accepted (everything else declines):
//   * lines of printable ASCII and tabs, at most 254 characters, '\n' line ends (no '\r');
//   * empty lines and '#' comment lines (also inside a record);
//   * directives switchguid= / caguid= / hcaguids= / rtguid= with '=' and a decimal or 0x hex
//     value, width= (1..31) and speed= (1..7) with a decimal value; nothing after the value
//     (so `switchguid=0x..(portguid)` and extspeed= decline: shared node GUIDs and default
//     extended speeds are the full parser's);
//   * node headers `Switch|Hca|Ca <N> "id"` (one blank or tab after the keyword, N decimal
//     1..kMaxPorts), optionally followed by blanks, '#', blanks and a quoted description,
//     for a switch optionally then ` lid L lmc M`;
//   * port lines `[p]` blanks `"remote"[rp]`, then optional blank-separated w=/s=/e= options,
//     then (CA ports only) optionally `# lid L lmc M`;
//   * a record ends at an empty line or after N port lines (a following '[' line declines);
//   * node GUIDs all different (a node GUID twice declines).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ftroute/error.hpp"
#include "ftroute/netfile.hpp"
#include "netfile_common.hpp"

namespace ftroute {
namespace {

using namespace netfile_detail;

struct Decline {};  // internal: leave the text to the full parser

bool blank(char c) { return c == ' ' || c == '\t'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool alnum_(char c) { return digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_'; }

// Decimal number without a leading zero ("0" alone is fine), at most 9 digits.
[[gnu::always_inline]] inline uint64_t dec(std::string_view s, size_t& pos) {
  const size_t start = pos;
  uint64_t v = 0;
  while (pos < s.size() && digit(s[pos])) {
    v = v * 10 + static_cast<uint64_t>(s[pos] - '0');
    ++pos;
  }
  const size_t n = pos - start;
  if (n == 0 || n > 9 || (n > 1 && s[start] == '0')) throw Decline{};
  if (pos < s.size() && alnum_(s[pos])) throw Decline{};
  return v;
}

// Decimal (as dec) or 0x hex, at most 16 hex digits.
uint64_t dec_or_hex(std::string_view s, size_t& pos) {
  if (pos + 1 < s.size() && s[pos] == '0' && (s[pos + 1] == 'x' || s[pos + 1] == 'X')) {
    size_t p = pos + 2, start = p;
    uint64_t v = 0;
    while (p < s.size() && std::isxdigit(static_cast<unsigned char>(s[p]))) {
      const char c = s[p];
      v = v * 16 + static_cast<uint64_t>(digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
      ++p;
    }
    if (p == start || p - start > 16) throw Decline{};
    if (p < s.size() && alnum_(s[p])) throw Decline{};
    pos = p;
    return v;
  }
  return dec(s, pos);
}

void skip_blanks(std::string_view s, size_t& pos) {
  while (pos < s.size() && blank(s[pos])) ++pos;
}

// "..." at pos: the content (no '"' inside by construction; '#' and '@' decline for ids).
// `end` is the end of the whole text: up to 16 bytes before it are read at once (also past
// the line end; a '"' found there is no closing quote, as before).
[[gnu::always_inline]] inline std::string_view quoted(std::string_view s, size_t& pos, bool id, const char* end) {
  if (pos >= s.size() || s[pos] != '"') throw Decline{};
  const char* d = s.data();
  size_t close = pos + 1;
  bool bad = false, found = false;
#if defined(__SSE2__)
  if (static_cast<size_t>(end - (d + close)) >= 16) {  // d + close <= end: close <= s.size()
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + close));
    const unsigned q = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))));
    if (q) {
      const unsigned at = static_cast<unsigned>(_mm_movemask_epi8(
          _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('#')), _mm_cmpeq_epi8(v, _mm_set1_epi8('@')))));
      bad = (at & ((q & (0u - q)) - 1)) != 0;  // a '#' or '@' before the first '"'
      close += static_cast<size_t>(__builtin_ctz(q));
      if (close >= s.size()) throw Decline{};
      found = true;
    }
  }
#else
  (void)end;
#endif
  if (!found) {
    while (close < s.size() && d[close] != '"') {
      bad |= d[close] == '#' || d[close] == '@';
      ++close;
    }
    if (close == s.size()) throw Decline{};
  }
  std::string_view v = s.substr(pos + 1, close - pos - 1);
  if (id && (v.empty() || v.size() > kMaxIdLen || bad)) throw Decline{};
  pos = close + 1;
  return v;
}

struct Decl {  // one port line, 12 bytes (a .net file has one per ~22 bytes)
  int32_t node;
  uint32_t remote;      // offset of the remote id in the text
  uint8_t port, rport;  // 1..kMaxPorts
  uint16_t remote_len;  // <= kMaxIdLen
};
struct LidDecl {
  int node, port;
  uint64_t lid, lmc;
};

class FastParser {
 public:
  std::optional<Fabric> run(std::string_view text) {
    try {
      parse(text);
      finish();
      return std::move(f_);
    } catch (const Decline&) {
    } catch (const Error&) {  // FabricError from add_node/connect/validate: the full parser words it
    }
    return std::nullopt;
  }

 private:
  void parse(std::string_view text) {
    size_t pos = 0;
    const size_t n = text.size();
    if (n >= (1ull << 32)) throw Decline{};  // offsets are 32-bit (a 4 GB .net file: the full parser)
    text_ = text.data();
    end_ = text.data() + n;
    decls_.reserve(n / 16);  // write_net port lines are ~20-30 bytes
    // Nodes: a write_net fat tree has ~130 bytes of text per node (a CA record ~60, a switch
    // ~25 a port). Room for one per 96 bytes, so most files add their nodes without moving the
    // vector (a move copies every Node); untouched capacity costs no memory.
    f_.reserve(n / 96 + 16);
    // lines
    while (pos < n) {
      // one pass: the line end, and only printable ASCII and tabs before it
      size_t nl = pos;
      const char* d = text.data();
#if defined(__SSE2__)
      // 16 bytes at a time: a mask of the bytes that are control characters but tabs, DEL or
      // non-ASCII (negative as signed bytes, so below 0x20 too); the first one must be the '\n'
      const __m128i k20 = _mm_set1_epi8(0x20), k7f = _mm_set1_epi8(0x7f), ktab = _mm_set1_epi8('\t');
      for (;;) {
        if (nl + 16 > n) {  // the last bytes of the text: one by one
          while (nl < n) {
            const auto u = static_cast<unsigned char>(d[nl]);
            if ((u >= 0x20 && u < 0x7f) || u == '\t') {
              ++nl;
              continue;
            }
            if (u == '\n') break;
            throw Decline{};
          }
          break;
        }
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + nl));
        const __m128i odd = _mm_andnot_si128(_mm_cmpeq_epi8(v, ktab), _mm_or_si128(_mm_cmplt_epi8(v, k20), _mm_cmpeq_epi8(v, k7f)));
        const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(odd));
        if (m == 0) {
          nl += 16;
          continue;
        }
        nl += static_cast<size_t>(__builtin_ctz(m));
        if (d[nl] != '\n') throw Decline{};
        break;
      }
#else
      // 8 bytes at a time while none is a control character, DEL or non-ASCII (SWAR: a byte
      // below 0x20 or equal to 0x7f borrows into its top bit; non-ASCII has it set already)
      constexpr uint64_t k01 = 0x0101010101010101ull, k80 = 0x8080808080808080ull;
      for (;;) {
        while (nl + 8 <= n) {
          uint64_t w;
          std::memcpy(&w, d + nl, 8);
          const uint64_t lo = (w - 0x20 * k01) & ~w;  // bytes < 0x20 (for ASCII bytes)
          const uint64_t x7f = w ^ (0x7f * k01);
          const uint64_t del = (x7f - k01) & ~x7f;     // bytes == 0x7f
          if ((lo | del | w) & k80) break;
          nl += 8;
        }
        // byte by byte up to the next tab (then 8 at a time again) or the line end
        bool tab = false;
        while (nl < n) {
          const auto u = static_cast<unsigned char>(d[nl]);
          if (u >= 0x20 && u < 0x7f) {
            ++nl;
            continue;
          }
          if (u == '\n') break;
          if (u != '\t') throw Decline{};
          ++nl;
          tab = true;
          break;
        }
        if (!tab) break;
      }
#endif
      if (nl - pos > kMaxLineLen) throw Decline{};
      std::string_view l = text.substr(pos, nl - pos);
      pos = nl + 1;
      if (l.empty() || l[0] == '#') {
        if (in_record_) {
          if (l.empty()) in_record_ = false;
        }
        continue;
      }
      if (l[0] == '[') {
        if (!in_record_ || count_ >= nports_) throw Decline{};
        port_line(l);
        if (++count_ == nports_) in_record_ = false;
        continue;
      }
      if (in_record_) throw Decline{};  // the full parser: record must end with a blank line
      if (starts(l, "Switch")) header(l, kSw, 6);
      else if (starts(l, "Hca")) header(l, kCa, 3);
      else if (starts(l, "Ca")) header(l, kCa, 2);
      else if (starts(l, "switchguid=")) guid_base(l, kSw);
      else if (starts(l, "caguid=")) guid_base(l, kCa);
      else if (starts(l, "hcaguids=")) guid_base(l, kCa);
      else if (starts(l, "rtguid=")) guid_base(l, kRt);
      else if (starts(l, "width=")) {
        size_t p = 6;
        const uint64_t w = dec(l, p);
        if (p != l.size() || w < 1 || w > 31) throw Decline{};
        def_width_ = static_cast<uint8_t>(lanes_of_mask(static_cast<unsigned>(w)));
      } else if (starts(l, "speed=")) {
        size_t p = 6;
        const uint64_t s = dec(l, p);
        if (p != l.size() || s < 1 || s > 7) throw Decline{};
        def_speed_ = static_cast<uint8_t>(s);
      } else {
        throw Decline{};
      }
    }
    if (f_.size() == 0) throw Decline{};
  }

  static bool starts(std::string_view l, std::string_view p) { return l.substr(0, p.size()) == p; }

  void guid_base(std::string_view l, TypeIdx t) {
    size_t p = l.find('=') + 1;
    const uint64_t v = dec_or_hex(l, p);
    if (p != l.size()) throw Decline{};
    abs_[t] = next_[t] = v;
  }

  void header(std::string_view l, TypeIdx t, size_t kw) {
    size_t p = kw;
    if (p >= l.size() || !blank(l[p])) throw Decline{};
    ++p;
    const uint64_t np = dec(l, p);
    if (np < 1 || np > static_cast<uint64_t>(kMaxPorts)) throw Decline{};
    if (p >= l.size() || !blank(l[p])) throw Decline{};
    ++p;
    std::string_view id = quoted(l, p, true, end_);
    std::string_view desc;
    bool has_lid = false;
    uint64_t lid = 0, lmc = 0;
    if (p < l.size()) {
      skip_blanks(l, p);
      if (p >= l.size() || l[p] != '#') throw Decline{};
      ++p;
      skip_blanks(l, p);
      desc = quoted(l, p, false, end_);
      if (p < l.size()) {
        if (t != kSw || l.substr(p, 5) != " lid ") throw Decline{};
        p += 5;
        lid = dec(l, p);
        if (l.substr(p, 5) != " lmc ") throw Decline{};
        p += 5;
        lmc = dec(l, p);
        if (p != l.size()) throw Decline{};
        has_lid = true;
      }
    }
    const uint64_t guid = next_[t];
    guids_[t].push_back(guid);  // duplicates: checked at the end
    const int node = f_.add_node(t == kSw ? NodeType::Switch : NodeType::Ca, std::string(id), static_cast<int>(np), guid);
    nports_of_.push_back(static_cast<int>(np));
    ports_of_.push_back(f_.node(node).ports.data());  // stays put when nodes_ grows (the vector moves)
    Node& nd = f_.node(node);
    if (!desc.empty()) nd.desc = std::string(desc);
    init_node_ports(nd, t == kSw, guid, def_width_, def_speed_, 0);  // extspeed= declines
    next_[t] += t == kSw ? 1 : np + 1;
    if (has_lid && lid) lids_.push_back({node, 0, lid, lmc});
    node_ = node;
    type_ = t;
    nports_ = static_cast<int>(np);
    count_ = 0;
    in_record_ = true;
    std::memset(seen_, 0, sizeof seen_);
  }

  void port_line(std::string_view l) {
    size_t p = 1;
    const uint64_t port = dec(l, p);
    if (p >= l.size() || l[p] != ']') throw Decline{};
    ++p;
    if (port < 1 || port > static_cast<uint64_t>(nports_) || (seen_[port / 64] >> (port % 64) & 1)) throw Decline{};
    seen_[port / 64] |= 1ull << (port % 64);
    if (p >= l.size() || !blank(l[p])) throw Decline{};
    skip_blanks(l, p);
    std::string_view remote = quoted(l, p, true, end_);
    if (p >= l.size() || l[p] != '[') throw Decline{};
    ++p;
    const uint64_t rp = dec(l, p);
    if (p >= l.size() || l[p] != ']' || rp < 1 || rp > static_cast<uint64_t>(kMaxPorts)) throw Decline{};
    ++p;
    Port& pt = ports_of_[static_cast<size_t>(node_)][port];  // port in 1..nports_ (checked above)
    for (;;) {
      if (p == l.size()) break;
      if (!blank(l[p])) throw Decline{};
      skip_blanks(l, p);
      if (p == l.size()) break;
      const char k = l[p];
      if (k == '#') {
        if (type_ == kSw || l.substr(p, 6) != "# lid ") throw Decline{};
        p += 6;
        const uint64_t lid = dec(l, p);
        if (l.substr(p, 5) != " lmc ") throw Decline{};
        p += 5;
        const uint64_t lmc = dec(l, p);
        if (p != l.size()) throw Decline{};
        if (lid) lids_.push_back({node_, static_cast<int>(port), lid, lmc});
        break;
      }
      if ((k != 'w' && k != 's' && k != 'e') || p + 1 >= l.size() || l[p + 1] != '=') throw Decline{};
      p += 2;
      const uint64_t v = dec(l, p);
      if (k == 'w') {
        if (v < 1 || v > 31) throw Decline{};
        pt.width = static_cast<uint8_t>(lanes_of_mask(static_cast<unsigned>(v)));
      } else if (k == 's') {
        if (v < 1 || v > 7) throw Decline{};
        pt.speed = static_cast<uint8_t>(v);
      } else {
        if (v > 7) throw Decline{};
        pt.speed_ext = static_cast<uint8_t>(v);
      }
    }
    decls_.push_back({node_, static_cast<uint32_t>(remote.data() - text_), static_cast<uint8_t>(port),
                      static_cast<uint8_t>(rp), static_cast<uint16_t>(remote.size())});
  }

  // No node GUID twice. Each type's GUIDs usually come in increasing order (ibsim's counters
  // step up) in ranges apart from the other types': then no sort is needed.
  void check_guids_unique() {
    uint64_t lo[3], hi[3];
    bool easy = true;
    for (int t = 0; t < 3; t++) {
      const std::vector<uint64_t>& g = guids_[t];
      for (size_t i = 1; i < g.size() && easy; i++) easy = g[i - 1] < g[i];
      lo[t] = g.empty() ? 0 : g.front();
      hi[t] = g.empty() ? 0 : g.back();
    }
    for (int a = 0; a < 3 && easy; a++)
      for (int b = a + 1; b < 3 && easy; b++)
        easy = guids_[a].empty() || guids_[b].empty() || hi[a] < lo[b] || hi[b] < lo[a];
    if (easy) return;
    std::vector<uint64_t> all;
    for (const auto& g : guids_) all.insert(all.end(), g.begin(), g.end());
    std::sort(all.begin(), all.end());
    if (std::adjacent_find(all.begin(), all.end()) != all.end()) throw Decline{};
  }

  void finish() {
    check_guids_unique();
    // Links. A port is declared at most once (seen_), so a pair of declarations that do not
    // point back at each other leaves a port linked twice, which declines (as Fabric::connect
    // would refuse it); a pair that agrees is linked by the first and is a no-op for the second.
    // Port numbers are in range: the own port by the header, the remote's checked here.
    // Two passes: resolve every remote id, then link, prefetching the remote port a few
    // declarations ahead (the remote ports are the random accesses; own ports are in order).
    std::vector<int32_t> rnode(decls_.size());
    f_.find_many(
        decls_.size(), [&](size_t k) { return std::string_view(text_ + decls_[k].remote, decls_[k].remote_len); },
        rnode.data());
    for (size_t k = 0; k < decls_.size(); k++) {
      const int32_t r = rnode[k];
      if (r < 0 || decls_[k].rport > nports_of_[static_cast<size_t>(r)]) throw Decline{};
    }
    constexpr size_t kAhead = 8;
    for (size_t k = 0; k < decls_.size(); k++) {
      if (k + kAhead < decls_.size())
        __builtin_prefetch(ports_of_[static_cast<size_t>(rnode[k + kAhead])] + decls_[k + kAhead].rport, 1);
      const Decl& d = decls_[k];
      const int b = rnode[k], pb = d.rport, a = d.node, pa = d.port;
      if (b == a && pb == pa) throw Decline{};
      Port& x = ports_of_[static_cast<size_t>(a)][pa];
      Port& y = ports_of_[static_cast<size_t>(b)][pb];
      if (x.peer_node == b && x.peer_port == pb && y.peer_node == a && y.peer_port == pa) continue;
      if (x.connected() || y.connected()) throw Decline{};
      x.peer_node = b;
      x.peer_port = static_cast<uint8_t>(pb);
      y.peer_node = a;
      y.peer_port = static_cast<uint8_t>(pa);
    }
    // LIDs: the full parser's checks, any failure declines
    std::vector<const LidDecl*> order;
    for (const LidDecl& l : lids_) {
      if (l.lmc > 7 || l.lid + (1ull << l.lmc) - 1 > kMaxUnicastLid) throw Decline{};
      order.push_back(&l);
    }
    auto by_lid = [](const LidDecl* a, const LidDecl* b) { return a->lid < b->lid; };
    if (!std::is_sorted(order.begin(), order.end(), by_lid)) std::sort(order.begin(), order.end(), by_lid);
    const LidDecl* widest = nullptr;
    for (const LidDecl* l : order) {
      if (widest && l->lid <= widest->lid + (1ull << widest->lmc) - 1) throw Decline{};
      if (!widest || l->lid + (1ull << l->lmc) > widest->lid + (1ull << widest->lmc)) widest = l;
    }
    for (const LidDecl& l : lids_) {
      Port& p = f_.node(l.node).port(l.port);
      p.base_lid = static_cast<Lid>(l.lid);
      p.lmc = static_cast<uint8_t>(l.lmc);
    }
    if (!lids_.empty()) {
      const LidDecl& l = lids_.back();
      f_.set_lid(l.node, l.port, static_cast<Lid>(l.lid), static_cast<uint8_t>(l.lmc));
    }
    // Fabric::validate() would find nothing: links are symmetric by construction above, port
    // numbers in range, LID ranges checked against each other and the unicast limit here.
  }

  Fabric f_;
  uint64_t abs_[3] = {0x100000, 0x200000, 0};
  uint64_t next_[3] = {0x100000, 0x200000, 0};
  uint8_t def_width_ = 4;
  uint8_t def_speed_ = 0;
  std::vector<Decl> decls_;
  std::vector<LidDecl> lids_;
  std::vector<uint64_t> guids_[3];  // node GUIDs by type, in node order
  std::vector<int> nports_of_;  // by node index
  std::vector<Port*> ports_of_;  // by node index: the Node's port array
  uint64_t seen_[4] = {};  // port lines seen in this record (ports 1..254)
  const char* text_ = nullptr;
  const char* end_ = nullptr;  // text_ + its size
  int node_ = -1, nports_ = 0, count_ = 0;
  TypeIdx type_ = kCa;
  bool in_record_ = false;
};

}  // namespace

std::optional<Fabric> fast_parse_net(std::string_view text) {
  if (std::getenv("FTROUTE_SLOW_NET_READER")) return std::nullopt;  // the full parser (tests, bench)
  FastParser p;
  return p.run(text);
}

}  // namespace ftroute
