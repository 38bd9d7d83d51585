// The picture of a routed fabric (`ftroute check --svg FILE`, docs/check.md "The picture"):
//  * the switches by tree level: the fat tree as ftree-misroute's recognition sees it
//    (ftree_misroute/fattree.hpp), sub-trees (pods) side by side; when the fabric is no fat tree,
//    BFS levels from the CA-attached switches instead, and the caption says so;
//  * every switch-to-switch cable coloured and thickened by its edge forwarding index (EFI: the
//    routes crossing it, the busier direction; ValidationReport::switch_link_loads);
//  * missing cables (inferred from the tree: a bundle with fewer cables than its rank's usual
//    bundle, a switch that misses a sub-tree or up-links its rank's widest switch has), unused
//    cables (present but carrying no route: down, failed or left out by the routing) and the
//    hottest link, marked;
//  * CAs collapsed into a count per switch; a legend and a caption.
// Every text taken from the fabric is escaped (xml_text, ftroute/input_file.hpp): the SVG is well-formed XML for any
// NodeDescription.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ftroute/fabric.hpp"
#include "ftroute/validate.hpp"

namespace ftroute {

// Where the switches go: a level per switch and, in a recognised fat tree, the nested sub-trees.
struct TreeLevels {
  bool recognised = false;      // true: from recognize_fat_tree(); false: BFS levels
  std::string shape;            // FatTree::shape, or why the recognition refused the fabric
  int height = 0;               // the top level (levels 0 .. height)
  std::vector<int> level;       // by node index; -1 = not a switch, or a switch no level reached
  // by node index: the sub-tree ids (FatTree::block) from level height-1 down to the switch's
  // own level; empty for the top level and in BFS levels. Switches sharing a prefix are drawn
  // side by side; the first entry is the pod.
  std::vector<std::vector<int>> groups;
  int pods = 0;                 // sub-trees at level height-1 holding more than one switch
  int missing_estimate = 0;     // FatTree::missing_links (0 in BFS levels)

  // Missing cables, as placeholders: `cables` cables between switches a (lower level) and b.
  struct MissingPair {
    int a = -1, b = -1, cables = 1;
  };
  // Missing cables no peer could be named for: `cables` up- (or down-) links of switch `node`.
  struct MissingStub {
    int node = -1, cables = 1;
    bool up = true;
  };
  std::vector<MissingPair> missing_pairs;
  std::vector<MissingStub> missing_stubs;

  int missing_cables() const;   // sum over pairs and stubs
};

// The levels of `fabric`'s switches: recognize_fat_tree() when it succeeds (missing cables
// placed as above), else BFS distance from the CA-attached switches (switches it cannot reach
// get level -1 and are drawn in a row of their own).
TreeLevels tree_levels(const Fabric& fabric);

struct FabricSvgOptions {
  std::string fabric_name;  // caption: the fabric file (or generator spec)
  std::string lfts_name;    // caption: the LFT file
  std::string engine;       // caption: the engine that computed the LFTs, when known
};

// The picture as SVG text (UTF-8, well-formed XML). `report` must come from validate() on the
// same fabric (its switch_link_loads give the EFI per cable).
std::string fabric_svg(const Fabric& fabric, const ValidationReport& report, const TreeLevels& levels,
                       const FabricSvgOptions& options = {});

}  // namespace ftroute
