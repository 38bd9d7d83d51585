// flitsim's internal data structures (private to flitsim/): the event, buffer, channel,
// connection, packet, switch, endpoint and NAC records that Simulator::Impl (sim_impl.hpp) holds,
// the RNG, the ring buffer and the FLITSIM_CHECK invariant macro. See docs/flitsim.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ftroute/flitsim.hpp"
#include "ftdrb_select.hpp"
#include "ftroute/route_walk.hpp"

namespace ftroute::flitsim {


// Internal invariant check: throws instead of aborting (library code may run inside tools).
// The message is built in an out-of-line cold lambda, so a check on the per-flit path costs a
// compare and a branch, not the register pressure of an inline std::string construction.
#define FLITSIM_CHECK(cond, what)                                                              \
  do {                                                                                         \
    if (__builtin_expect(!(cond), 0))                                                          \
      [&]() __attribute__((noinline, cold)) {                                                  \
        throw Error(std::string("flitsim internal invariant violated: ") + (what));           \
      }();                                                                                     \
  } while (0)

namespace detail {

struct Rng {  // xoshiro256** seeded by splitmix64
  uint64_t s[4];
  explicit Rng(uint64_t seed) {
    for (auto& x : s) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      x = z ^ (z >> 31);
    }
  }
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
    return r;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

// Ring buffer with a power-of-two capacity (index by mask: a modulo costs a division per flit).
template <class T>
struct Ring {
  std::vector<T> v;
  uint32_t head = 0, n = 0, mask = 0;
  void init(size_t cap) {
    size_t c = 1;
    while (c < cap) c <<= 1;
    v.assign(c, T{});
    mask = static_cast<uint32_t>(c - 1);
  }
  bool empty() const { return n == 0; }
  uint32_t size() const { return n; }
  T& front() { return v[head]; }
  T& back() { return v[(head + n - 1) & mask]; }
  T& at(uint32_t i) { return v[(head + i) & mask]; }
  void push(const T& x) {
    if (n == v.size()) {  // grow (only the DAB-less worst case of 1-flit packets can fill it)
      std::vector<T> nv(v.size() * 2);
      for (uint32_t i = 0; i < n; i++) nv[i] = at(i);
      v.swap(nv);
      head = 0;
      mask = static_cast<uint32_t>(v.size() - 1);
    }
    v[(head + n) & mask] = x;
    n++;
  }
  void pop() { head = (head + 1) & mask, n--; }
};

enum : uint8_t { kIdle, kRouting, kWaiting, kActive, kDiscard };
// kEvFlitCredit = a flit arriving on channel a plus the credit for the buffer it left (channel
// c2, VC vc2): the common case credit_delay == link_latency needs one event per flit hop, not two.
enum EvKind : uint8_t { kEvFlit, kEvCredit, kEvRoute, kEvNacId, kEvNacRec, kEvNacTimeout, kEvFlitCredit };

struct Ev {
  uint8_t kind;
  uint8_t vc;
  uint8_t vc2 = 0;
  uint8_t pad = 0;
  uint32_t a;  // channel / msg index
  uint32_t b;  // packet slot / count
  int32_t size;
  uint32_t c2 = 0;
};

struct Entry {
  uint32_t pkt = 0;
  int32_t size = 0, arrived = 0, departed = 0;
  int64_t head_arrival = 0;
};

struct InVC {
  Ring<Entry> q;
  int32_t occ = 0;  // flits in q (not counting the DAB)
  uint8_t state = kIdle;
  bool dab_full = false;
  bool in_req = false;         // listed in its switch's request vector
  bool dab_holds_st = false;   // the DAB packet holds a NAC stop token on (st_ch, st_vc)
  uint8_t st_vc = 0;
  int32_t st_ch = -1;
  int32_t out_ch = -1;
  uint8_t out_vc = 0;
  int32_t conn = -1;      // connection reading the front (also discard)
  int32_t nac_run = -1;   // open NAC run originated by this input VC
  Entry dab;
  Entry& front() { return dab_full ? dab : q.front(); }
  bool has_front() const { return dab_full || !q.empty(); }
};

struct Channel {
  int src_node, src_port, dst_node, dst_port;
  int src_ep = -1;  // source endpoint (CA side) or -1 for a switch
  int dst_ep = -1;  // sink endpoint or -1 for a switch input
  int src_sw = -1, dst_sw = -1;  // switch index (dense) or -1
  bool alive = true;
  int32_t out_conn = -1;  // connection currently using this channel as output
  int32_t in_conn = -1;   // crossbar connection reading this channel's input buffer
  uint16_t out_rr = 0;    // allocator pointer (input port number) for this output
  uint16_t in_rr = 0;     // allocator pointer (VC) for this input
  uint16_t acc_rr = 0;    // iSLIP accept pointer (output port number) for this input
};

struct Conn {
  uint32_t pkt;
  int32_t in_ch;   // -1 = source queue
  int32_t ep;      // source endpoint when in_ch == -1
  int32_t out_ch;  // -1 = discard
  uint8_t in_vc, out_vc;
  bool from_dab;
  int32_t size, sent;
  int64_t start;
  uint32_t list_pos;
  bool finish_dead = false;  // Escape: its link died after the head crossed; the tail follows
};

struct Pkt {
  uint64_t id;
  int32_t src, dst;
  Lid slid, dlid;
  uint8_t sl;
  bool measured, doomed, finalized, injected;
  bool lid_chosen, probe, notified;  // FtDrb: DLID picked at the head of the source queue; probe message
  bool escaped;  // FaultPolicy::Escape: re-addressed to an escape LID (no latency ACK)
  uint8_t lid_off;
  int64_t lid_at;  // FtDrb: cycle the DLID was chosen
  int32_t size, deliver_size, sink_arrived, flits_left;
  int32_t hops;
  int64_t gen, inject;
  int32_t wp = -1;    // Waypoints: index into the table, -1 = none (left)
  uint8_t wp_pos = 0; // the waypoint the packet is addressed to
  Lid wp_dlid = 0;    // the destination LID after the last waypoint
};

struct SwitchState {
  int node;
  std::vector<int32_t> in_chs;  // incoming channels
  std::vector<int32_t> out_by_port;  // port -> outgoing channel (-1)
  std::vector<uint32_t> req;    // global ivc ids (ch * V + vc) in kWaiting
  bool dirty = false;
  int stopped_fw = 0;  // NAC: local (CA) inputs may not forward while > 0
  int dab_count = 0;
};

struct EpState {
  int node, port;
  Lid base;
  uint8_t lmc;
  int32_t out_ch = -1, in_ch = -1;
  std::deque<uint32_t> queue;  // source queue (packet slots)
  bool dirty = false;
  uint32_t rr = 0;
  uint64_t window_ejected = 0;  // flits ejected here in the measurement window
  // Synthetic source process: cycle of the next Bernoulli generation not materialised yet (-1:
  // none). Lazy sources (default) materialise it only when the queue is empty (run() comment).
  int64_t gen_due = -1;
};

struct NacMsg {
  uint64_t seq;
  int origin_sw;
  int32_t origin_in_ch;
  uint8_t origin_in_vc, origin_out_vc;
  int32_t origin_out_ch;
  int32_t ttl;
  int32_t credits;  // recovery: the freed DAB slot's credits travel with the signal
  int32_t ch;  // channel the message travels back over (arrives at ch.src)
  uint8_t vc;
};

struct NacRun {
  uint64_t seq;
  int sw;
  int32_t in_ch;
  uint8_t in_vc;
  int32_t out_ch;
  uint8_t out_vc;
  bool confirmed = false, open = true, token = true;
  int64_t start = 0;  // cycle of the trigger
};

struct LinkEv {
  int64_t cycle;
  int node, port;
  bool up;
};
struct RoutingEv {
  int64_t cycle;
  const Routing* r;
};
struct TraceRec {
  int64_t cycle;
  int src, dst, flits;
};

}  // namespace detail
using namespace detail;

}  // namespace ftroute::flitsim
