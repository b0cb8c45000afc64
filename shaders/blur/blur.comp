#version 460
// vkfx blur: a separable Gaussian or box blur of one region of an image into another image, in one
// dispatch ("store caching").
//
// A workgroup owns a strip of `strip` output columns and `segment` output rows of one layer. It
// walks down the strip in steps of `rows` rows. Each step loads the next `rows` source rows of the
// strip plus the horizontal halo (radiusX texels each side) into shared memory (every source texel
// is read once per strip: load caching), blurs them horizontally into a ring of rows in shared
// memory, blurs the ring vertically and writes the `rows` output rows whose 2 * radiusY + 1 source
// rows it now holds, 2 * radiusY rows behind the newest (store caching: the horizontal result
// never leaves shared memory). The ring holds rows + 2 * radiusY rows; the first steps of a
// segment write fewer rows (or none), and the last ones only the rows its halo lagged behind.
//
// Borders: a tap outside the source region reads the texel the border mode maps it to (per axis,
// which makes every mode separable), or the constant colour. Taps never read outside the region,
// so the region blurs as an image of its own.
//
// Precision: taps, weights and sums in fp32; sRGB sources are read through an sRGB view (decoded
// by the sampler) and the result is encoded by the kernel, so the blur happens in linear light.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common/format.glsl"
#include "common/srgb.glsl"

const uint kGroupSize = 256u;
const uint kMaxRadius = 128u; // the direct path's largest radius
const uint kStageLoads = 4u;  // source texels each invocation has in flight while staging

layout(local_size_x = 256) in;

layout(constant_id = 0) const bool kSrgb = false;
#include "blur/border.glsl"

// Texel slots of shared memory for the ring and the staged rows (sized by the host from the
// device's maxComputeSharedMemorySize).
layout(constant_id = 1) const uint kSharedTexels = 1024u;
// Outputs per invocation and pass (a register window of taps): 4, or 1 where a step has too few
// outputs for four per invocation to keep the workgroup busy (RGBA16F at radius 1 and 2).
layout(constant_id = 2) const uint kOutputs = 4u;

#include "blur/direct.glsl"

// 16-byte slots (fp32 RGBA): rows of the ring and of the staged texels one slot longer (an odd
// number of slots), and the horizontal pass's lanes in blocks of 4 rows x 2 groups of 4 columns,
// so that a bank pass (8 lanes of 16 bytes) takes distinct banks; in one row, 4 slots apart,
// they took 2. (As blur_tile.comp; the host's layout counts the padding.)
#if !VKFX_BLUR_PACKED && VKFX_CHANNELS == 4
const bool kPadRows = kOutputs == 4u;
#else
const bool kPadRows = false;
#endif

shared SLOT sTexels[kSharedTexels]; // the ring (ringRows x strip), then the staged rows
shared float sWeightX[2u * kMaxRadius + 1u]; // taps -r..r
shared float sWeightY[2u * kMaxRadius + 1u];
shared float sScratch[2];

// Normalized weights of taps -r..r of one axis: Gaussian exp(-k^2 / (2 sigma^2)) / sum, or
// 1 / (2r + 1) for a box. Summed by one invocation in a fixed order (smallest first).
void makeWeights(uint axis)
{
    uint r = pc.radius[axis];
    uint tid = gl_LocalInvocationIndex;
    float w = 0.0;
    if (tid <= r) {
        float k = float(tid);
        w = pc.kernel == kFilterBox ? 1.0 : exp(pc.weightScale[axis] * k * k);
        if (axis == 0u) sWeightX[tid] = w;
        else sWeightY[tid] = w;
    }
    barrier();
    if (tid == 0u) {
        float sum = 0.0;
        for (uint k = r; k >= 1u; --k) sum += 2.0 * (axis == 0u ? sWeightX[k] : sWeightY[k]);
        sum += axis == 0u ? sWeightX[0] : sWeightY[0];
        sScratch[axis] = 1.0 / sum;
    }
    barrier();
    if (tid <= r) {
        w *= sScratch[axis];
        if (axis == 0u) {
            sWeightX[r + tid] = w;
            sWeightX[r - tid] = w;
        } else {
            sWeightY[r + tid] = w;
            sWeightY[r - tid] = w;
        }
    }
}

VEC constantColor() { return VEC_FROM4(pc.borderColor); }

VEC fetchSource(int x, int y, uint layer)
{
    return VEC_FROM4(texelFetch(src, ivec3(pc.srcOffset + ivec2(x, y), int(layer)), 0));
}

// Staged texel i of a step (rows of `stagedWidth` texels from source column `x0`): its row within
// the step and its border-mapped source column, as row << 20 | column + 1 (the row below 4096,
// the column below 2^20; column + 1 is 0 outside the region in kBorderConstant).
uint stagedRowColumn(uint i, uint stagedWidth, int x0, int width)
{
    uint r = i / stagedWidth;
    return (r << 20) | uint(borderIndex(x0 + int(i - r * stagedWidth), width, pc.border) + 1);
}

#include "blur/window.glsl"

void main()
{
    uint tid = gl_LocalInvocationIndex;
    uint layer = gl_WorkGroupID.z;
    int width = int(pc.extent.x);
    int height = int(pc.extent.y);
    int rx = int(pc.radius.x);
    int ry = int(pc.radius.y);
    uint strip = pc.strip;
    uint rows = pc.rows;
    int x0 = int(gl_WorkGroupID.x * strip);
    int y0 = int(gl_WorkGroupID.y * pc.segment);
    uint outRows = min(pc.segment, uint(height - y0));
    uint steps = (outRows + 2u * pc.radius.y + rows - 1u) / rows;
    uint stagedWidth = strip + 2u * pc.radius.x;
    bool pad = kPadRows && strip >= 8u;                      // uniform
    uint ringStride = pad ? strip + 1u : strip;              // slots of a ring row
    uint stagedStride = pad ? stagedWidth + 1u : stagedWidth; // slots of a staged row
    uint staged = pc.ringRows * ringStride;                  // first staged slot
    uint tapsX = 2u * pc.radius.x + 1u;
    uint tapsY = 2u * pc.radius.y + 1u;

    makeWeights(0u);
    makeWeights(1u);

    // Horizontal: invocation = (row, kOutputs consecutive columns); vertical: (column,
    // kOutputs consecutive rows). Idle when strip * rows / kOutputs < kGroupSize.
    bool busy = tid < strip * rows / kOutputs;
    uint perRow = strip / kOutputs;
    uint hRow = tid / perRow;
    uint hCol = (tid % perRow) * kOutputs;
    if (pad) { // blocks of 8 invocations: 4 rows x 2 groups, row block by row block
        uint block = tid >> 3u;
        hRow = 4u * (block / (perRow / 2u)) + (tid & 3u);
        hCol = kOutputs * (2u * (block % (perRow / 2u)) + ((tid >> 2u) & 1u));
    }
    uint vCol = tid % strip;
    uint vRow = (tid / strip) * kOutputs;

    // The staged texels of each step's first round: the same row within the step and the same
    // border-mapped column every step, found once (stagedRowColumn; 0xFFF00000: none).
    // (Their division and column mapping in the step loop cost 5-11% of the time on an H200.)
    uint stagedCount = rows * stagedWidth;
    uint firstRound[kStageLoads];
    [[unroll]] for (uint k = 0u; k < kStageLoads; ++k) {
        uint i = k * kGroupSize + tid;
        firstRound[k] = i < stagedCount ? stagedRowColumn(i, stagedWidth, x0 - rx, width) : 0xFFF00000u;
    }

    for (uint step = 0u; step < steps; ++step) {
        // 1. Stage source rows y0 - ry + step * rows + i (i < rows), columns x0 - rx .. x0 +
        //    strip + rx - 1, border-mapped.
        //    The loads of a round are all issued before any is stored, so that their latencies
        //    overlap.
        int firstRow = y0 - ry + int(step * rows);
        for (uint round = 0u; round < stagedCount; round += kStageLoads * kGroupSize) {
            VEC loaded[kStageLoads];
            uint stagedRow[kStageLoads];
            [[unroll]] for (uint k = 0u; k < kStageLoads; ++k) {
                uint i = round + k * kGroupSize + tid;
                uint rc = round == 0u ? firstRound[k] : stagedRowColumn(i, stagedWidth, x0 - rx, width);
                stagedRow[k] = rc >> 20;
                int sx = int(rc & 0xFFFFFu) - 1;
                int sy = borderIndex(firstRow + int(stagedRow[k]), height, pc.border);
                loaded[k] = (i >= stagedCount || sx < 0 || sy < 0) ? constantColor() : fetchSource(sx, sy, layer);
            }
            [[unroll]] for (uint k = 0u; k < kStageLoads; ++k) {
                uint i = round + k * kGroupSize + tid;
                if (i < stagedCount) sTexels[staged + i + (pad ? stagedRow[k] : 0u)] = toSlot(loaded[k]);
            }
        }
        barrier();

        // 2. Horizontal: ring row (step * rows + hRow) mod ringRows, columns hCol...
        if (busy) {
            uint base = staged + hRow * stagedStride + hCol;
            VEC acc[kOutputs];
#define AT_H(i) fromSlot(sTexels[base + (i)])
#define WEIGHT_X(i) sWeightX[i]
            FILTER_OUTPUTS(acc, tapsX, WEIGHT_X, AT_H)
            uint ring = ((step * rows + hRow) % pc.ringRows) * ringStride + hCol;
            [[unroll]] for (uint j = 0u; j < kOutputs; ++j) sTexels[ring + j] = toSlot(acc[j]);
        }
        barrier();

        // 3. Vertical: output rows y0 + first + j (j < kOutputs, those in 0 .. outRows - 1), first
        //    = step * rows + vRow - 2 ry, from ring rows first + j + i (i = 0..2 ry: the source
        //    rows ry above to ry below; the newest is step * rows + vRow + kOutputs - 1).
        int first = int(step * rows + vRow) - 2 * ry; // > -ringRows
        if (busy && first + int(kOutputs) > 0 && first < int(outRows)) {
            int x = x0 + int(vCol);
            if (x < width) {
                uint ringFirst = uint(first + int(pc.ringRows)) % pc.ringRows;
                VEC acc[kOutputs];
// ringFirst + i < 2 ringRows (i < 2 ry + kOutputs, the ring has 2 ry + rows rows): one
// conditional wrap.
#define RING_ROW(k) ((k) >= pc.ringRows ? (k) - pc.ringRows : (k))
#define AT_V(i) fromSlot(sTexels[RING_ROW(ringFirst + (i)) * ringStride + vCol])
#define WEIGHT_Y(i) sWeightY[i]
                FILTER_OUTPUTS(acc, tapsY, WEIGHT_Y, AT_V)
                [[unroll]] for (uint j = 0u; j < kOutputs; ++j) {
                    int y = first + int(j);
                    if (y >= 0 && y < int(outRows))
                        imageStore(dst, ivec3(pc.dstOffset + ivec2(x, y0 + y), int(layer)), encode(acc[j]));
                }
            }
        }
        // The next step's staging and ring writes come after its first barrier: the vertical
        // reads of this step are done by then.
    }
}
