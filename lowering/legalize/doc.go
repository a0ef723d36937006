// Package legalize holds the passes that make an HLO module fit Pulse's
// chips rather than define any op: tiles of at most four dimensions
// (SqueezeTransposes), static shapes, canonical dot and gather forms for
// the MXU and the DMA engines, and the algorithms the chip runs in place
// of ops it has no unit for (sorting networks, reduce windows, convolution
// tap loops). What an op means is hlo/expand's; these passes only choose
// how Pulse computes it, so the reference evaluator never runs them on
// the modules it judges.
package legalize
