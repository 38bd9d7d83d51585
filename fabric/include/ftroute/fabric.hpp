// The fabric model: nodes (switches, channel adapters, routers), their physical ports,
// the links between ports, GUIDs, and LIDs with LMC. No OpenSM types here; the plugin
// adapts osm_subn_t into this model, the .net reader builds it from ibsim/ibnetdiscover files.
//
// Conventions (same as InfiniBand / OpenSM):
//  * physical ports are numbered 1..num_ports; port 0 of a switch is its management port
//    (the switch's own LID lives there); a CA has no port 0.
//  * LIDs are 16-bit, unicast LIDs are 1..0xBFFF; a LID range of an end port is
//    [base_lid, base_lid + 2^lmc - 1].
//  * an "end port" is a port that owns LIDs: switch port 0 or a CA/router port.
//  * LFTs are indexed by LID and hold an output port; 0 means "this switch", 255 (kNoPath)
//    means no route (OSM_NO_PATH).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ftroute {

using Lid = uint16_t;
constexpr Lid kMaxUnicastLid = 0xBFFF;
constexpr uint8_t kNoPath = 0xFF;
constexpr int kMaxPorts = 254;  // ports 1..254 usable; 255 is kNoPath

enum class NodeType : uint8_t { Switch, Ca, Router };
const char* node_type_name(NodeType t);  // "Switch", "Ca", "Rt" (ibsim/ibnetdiscover keywords)

struct Port {
  int peer_node = -1;      // node index at the other end, -1 = not connected
  uint8_t peer_port = 0;   // port number at the other end
  uint8_t width = 4;       // link width (1, 4, 8, 12) as in .net "w="
  uint8_t speed = 0;       // ibsim speed code as in .net "s=" (0 = default)
  uint64_t guid = 0;       // port GUID (switch: every port carries the node GUID)
  Lid base_lid = 0;        // only for end ports (switch port 0, CA/router ports); 0 = none
  uint8_t lmc = 0;
  uint8_t speed_ext = 0;   // ibsim extended speed mask as in .net "e=" (1 FDR, 2 EDR, 4 HDR; 0 = none)
  bool connected() const { return peer_node >= 0; }
};

struct Node {
  NodeType type = NodeType::Switch;
  std::string id;          // ibsim node id (the quoted name in .net files), unique
  std::string desc;        // node description (ibsim uses the id)
  uint64_t guid = 0;       // node GUID (unique in a fabric)
  // The node GUID the fabric reported, when it is not `guid`: the ASICs of a director chassis
  // that all report the chassis GUID (ibnetdiscover `switchguid=0xCHASSIS(portguid)`) are told
  // apart by their port GUIDs, which become `guid`; the shared GUID is kept here. 0 = same as guid.
  uint64_t reported_guid = 0;
  int num_ports = 0;
  std::vector<Port> ports; // size num_ports + 1, index = port number (index 0 unused for CAs)
  bool is_switch() const { return type == NodeType::Switch; }
  const Port& port(int p) const { return ports.at(static_cast<size_t>(p)); }
  Port& port(int p) { return ports.at(static_cast<size_t>(p)); }
};

// A port that owns a LID range.
struct EndPort {
  int node = -1;
  uint8_t port = 0;        // 0 for a switch
  Lid base_lid = 0;
  uint8_t lmc = 0;
  Lid last_lid() const { return static_cast<Lid>(base_lid + (1u << lmc) - 1); }
};

// Where a LID enters the switch fabric: the switch that delivers it and the output port on that
// switch (0 when the LID is the switch's own). A CA attached to nothing has no attach point.
struct Attach {
  int sw = -1;
  uint8_t port = 0;
  bool valid() const { return sw >= 0; }
};

class Fabric {
 public:
  // ---- construction (throws FabricError with node/port names on misuse) ----
  int add_node(NodeType type, std::string id, int num_ports, uint64_t guid = 0);
  // Room for this many nodes (the node array and the ids' keys), so a reader that counted or
  // estimated its records adds them without moving the nodes. The id hash table still grows
  // with the ids (kept small for lookups). Changes nothing else.
  void reserve(size_t nodes);
  // Links port pa of node a with port pb of node b (both directions). Throws if either port is
  // out of range or already linked to a different peer. Linking the same pair twice is a no-op.
  void connect(int a, int pa, int b, int pb);
  void disconnect(int a, int pa);  // removes the link at (a, pa) and its reverse; no-op if none
  void set_lid(int node, int port, Lid base, uint8_t lmc = 0);

  // Assigns LIDs 1, 2, ... to every end port in node order (switches first if
  // switches_first), each CA/router port getting a block of 2^lmc LIDs aligned to 2^lmc as
  // OpenSM does; switch port 0 gets lmc 0 (or lmc when lmc_esp0). Replaces existing LIDs.
  // Throws FabricError naming the LID count and the limit (49151 unicast LIDs) when the fabric
  // does not fit; the fabric is then unchanged.
  void assign_lids(uint8_t lmc = 0, bool switches_first = true, bool lmc_esp0 = false);

  // Gives every node/port without a GUID one, following ibsim's defaults (switch node GUIDs
  // from 0x200000, CA node GUIDs from 0x100000 with port GUID = node GUID + port).
  void assign_default_guids();

  // ---- queries ----
  int size() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int i) const { return nodes_.at(static_cast<size_t>(i)); }
  Node& node(int i) { return nodes_.at(static_cast<size_t>(i)); }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::optional<int> find(std::string_view id) const;          // by node id
  // find() of n ids at once, id_at(k) giving the k-th: out[k] = its node index or -1. The table
  // lookups of the next ids are prefetched while one is compared (readers resolving many ids).
  template <class IdAt>
  void find_many(size_t n, IdAt&& id_at, int32_t* out) const;
  std::optional<int> find_guid(uint64_t node_guid) const;       // by node GUID
  const std::vector<int>& switches() const { return switches_; } // node indices, in order added
  std::vector<int> cas() const;                                  // CA and router nodes
  int num_links() const;                                         // physical links (each counted once)
  // Switch-to-switch links, each once, as (node, port) of its lower end (node index, then port),
  // in node order: the candidates for link faults.
  std::vector<std::pair<int, int>> switch_links() const;

  // Rebuilds the LID index after set_lid/assign_lids (called automatically by them).
  const std::vector<EndPort>& end_ports() const;  // sorted by base LID, only those with a LID
  Lid max_lid() const { return max_lid_; }      // highest LID in use (0 if none)
  // End port owning the LID, if any.
  std::optional<EndPort> owner(Lid lid) const;
  Attach attach(Lid lid) const;

  // Names for messages (CLI, checks, engines, plugin log): one naming for every text that names a
  // node. A node is named by its description, quoted, with its id in brackets when the two differ
  // (ibnetdiscover fabrics: "lf07.rack3" (S-ec0d9a0300537d00), the id carrying the GUID), by its
  // id alone when the description is empty or equals the id (generated fabrics: "S1_1"). Names are
  // untrusted: '"' and '\' are escaped inside the quotes, control characters as \xNN (quote_name).
  std::string node_name(int node) const;            // "lf07.rack3" (S-ec0d...)   or   "S1_1"
  std::string port_name(int node, int port) const;  // "lf07.rack3"[3] (S-ec0d...) or  "S1_1"[3]
  // node_name() for lists of plain ids: the id unquoted (control characters as \xNN) when the
  // description equals it (H0_1), else node_name() ("node01 HCA-1" (H-0002c90300a1b2c4)).
  std::string node_label(int node) const;
  // The first switch or connected CA/router port without a LID, as (node, port) with port 0 for a
  // switch, when some end port has one (a fabric whose file carries LIDs for only some ports).
  std::optional<std::pair<int, int>> first_port_without_lid() const;

  // Sanity checks: every link symmetric, LIDs unique and not overlapping, at most
  // kMaxUnicastLid. Throws FabricError naming the first offending node/port.
  void validate() const;
  // LIDs read from a file (ibnetdiscover output carries OpenSM's): every switch and every
  // connected CA port needs one, or the LFTs could not cover it (first_port_without_lid). Throws
  // FabricError naming `label` (the file) and the switch or port, and the option that renumbers.
  void require_file_lids(const std::string& label, const std::string& renumber = "--lmc N") const;

  // True when every switch and end port can reach every other through working links.
  bool connected() const;

 private:
  void reindex_lids();
  std::vector<Node> nodes_;
  std::vector<int> switches_;
  // Node id -> node index: open addressing over node indices; the first 16 bytes of every id,
  // its length and hash sit in a dense array by node (24 bytes a node, so a lookup of an id of up
  // to 16 characters touches two small arrays, not the 100+-byte Nodes; longer ids compare the
  // rest against the Node's own string). No second std::string per node, no allocation per
  // insert. Node ids are not changed after add_node.
  struct IdKey {
    uint64_t a = 0, b = 0;  // the first 16 bytes, zero padded
    uint32_t len = 0, hash = 0;
  };
  static IdKey id_key(std::string_view id);
  int find_id(std::string_view id, const IdKey& k) const;  // node index or -1
  void grow_ids(size_t nodes);                            // room for this many ids
  std::vector<IdKey> id_keys_;     // by node index
  std::vector<int32_t> id_slots_;  // node index or -1; size 0 or a power of two, at most half full
  std::vector<int32_t> lid_owner_;   // LID -> index into lid_ports_, -1 = free
  std::vector<EndPort> lid_ports_;
  Lid max_lid_ = 0;
};

// Endpoints that are not compute nodes (issue 27). A SHARP aggregation node (AN) is a one-port
// CA that a switch carries on its internal port: the port after its external ones (37 on a
// 36-port SwitchIB, 41 on a 40-port Quantum, 65 on a 64-port Quantum-2), or a CA whose
// NodeDescription says "Aggregation Node" (how ibnetdiscover shows it, whichever port). ANs are
// routed like every LID, but they do not make their switch a leaf of a fat tree.
bool is_aggregation_node(const Fabric& f, int node);
// True when port `port` of switch `sw` is the internal port past the external ones of a
// standard switch ASIC (its number is the switch's last and one of 37, 41, 65, 145).
bool is_internal_switch_port(const Fabric& f, int sw, int port);

template <class IdAt>
void Fabric::find_many(size_t n, IdAt&& id_at, int32_t* out) const {
  if (id_slots_.empty()) {
    for (size_t k = 0; k < n; k++) out[k] = -1;
    return;
  }
  // three stages, kLag ids apart: hash the id and prefetch its first slot; read that slot and
  // prefetch the node's key; compare (find_id, its cache lines now at hand)
  constexpr size_t kLag = 8, kRing = 4 * kLag;  // kRing > 2 * kLag: a key lives 2 * kLag steps
  IdKey ring[kRing];
  const size_t mask = id_slots_.size() - 1;
  for (size_t k = 0; k < n + 2 * kLag; k++) {
    if (k >= 2 * kLag) {
      const size_t j = k - 2 * kLag;
      out[j] = find_id(id_at(j), ring[j % kRing]);
    }
    if (k >= kLag && k - kLag < n) {
      const int32_t s = id_slots_[ring[(k - kLag) % kRing].hash & mask];
      if (s >= 0) __builtin_prefetch(&id_keys_[static_cast<size_t>(s)]);
    }
    if (k < n) {
      ring[k % kRing] = id_key(id_at(k));
      __builtin_prefetch(&id_slots_[ring[k % kRing].hash & mask]);
    }
  }
}

}  // namespace ftroute
