// Package partition is Pulse's SPMD partitioner: it turns a module that
// carries shardings but no explicit partitioning (the HLO of a sharded
// jax.jit before XLA's partitioner, or Shardy StableHLO read by package
// stablehlo) into one program that every device runs, each on its own
// shards, meeting at the collectives the shardings need, as XLA's sharding
// propagation and SPMD partitioner do.
//
// The pieces, each in its own file:
//
//   - mesh.go: the device mesh (every axis split into prime factors, so
//     that XLA's tile assignments and Shardy's axes and sub-axes name the
//     same things) and a Sharding: the mesh axes each dimension is split
//     over, and the axes over which the value is still an unreduced
//     partial sum.
//   - sdy.go and hlosharding.go: reading Shardy's attributes
//     (#sdy.mesh, #sdy.sharding, #sdy.sharding_per_value, manual axes) and
//     HLO's sharding={devices=[...]<=[...]T(...)} into Shardings.
//   - reshard.go: a plan of collectives and local slices that moves a
//     value from one sharding to another (all-reduce, reduce-scatter,
//     all-gather, dynamic-slice), with its cost in bytes; planning is kept
//     apart from emission so that a plan can be tested alone.
//   - rules.go: for each op, the shardings its operands are moved to and
//     the sharding of its result (dots and convolutions choose, by that
//     cost, among the operands' shardings as XLA's dot handler does).
//   - partition.go: the driver, which walks the entry computation, emits
//     the per-device program as HLO text and parses it back.
//   - uneven.go: dimensions their devices do not divide, split over the
//     axes that do.
//   - combine.go: the all-reduce combiner run on the result, merging
//     independent all-reduces as XLA's does.
//   - shards.go: a global array cut into the shard each device holds, and
//     shards put back together, for binding global inputs and for tests.
//
// What is not partitioned efficiently is computed whole on every device
// (its operands gathered first), so that the answer is always right; the
// Plan lists every such fallback, naming the op, so that a user can see
// where the partition departs from XLA's.
package partition
