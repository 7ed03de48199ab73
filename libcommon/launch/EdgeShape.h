// Edge shapes: the launches a differential check adds to a spec's own so that code which only
// matters at the edges of a problem is exercised (issue 39). A spec written by hand, or inferred
// for the smallest launch, tends to have round sizes: a vector add of n = 3000 never runs the
// bounds checks of the last lanes of a vector of 4, so a candidate that lets lane 2 reuse lane
// 1's check computes K0's results there. Shapes derived from the resolved spec and launched with
// its buffers as they are (every buffer keeps its size, so a smaller problem reads and writes a
// part of them):
//   tail-1, tail-2, tail-3   every by-value integer argument of value >= 2 that much smaller
//                   (at least 1): from a size that is a multiple of 4, every remainder modulo 4
//                   (which lane of a vector of 4 is the last valid one), and a multiple of no
//                   larger tile; a stride shrinks with the size it is the stride of, so rows
//                   stay apart; none when the spec has no such argument;
//   one-workgroup   the spec's arguments on a grid of one workgroup (a kernel that strides over
//                   the grid, or divides work by the number of workgroups, takes its other
//                   path); none when the grid is one workgroup already.
// K0 defines what is right on them as everywhere; a shape on which K0 itself fails or races is
// left out by the check, which says so.
#pragma once

#include "launch/LaunchSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::launch {

struct EdgeShape {
  std::string Name;   // "tail-1", "tail-2", "tail-3", "one-workgroup"
  std::string Change; // what differs from the spec: "'n_elements' 3000 -> 2999"
  LaunchSpec Spec;    // the resolved spec with that change
};

// How many tail shapes: sizes 1, 2 and 3 smaller.
constexpr int64_t kTailShapes = 3;

// The edge shapes of a resolved spec S (resolveLaunchSpec), in the order above.
std::vector<EdgeShape> edgeShapes(const LaunchSpec &S);

} // namespace asmevo::launch
