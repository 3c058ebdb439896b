"""A compiled hint to the processor to load an array element into the cache ahead of its use.

The push engine looks each child up in a hash table several times larger than the cache; the
look-ups of one expansion do not depend on one another, so asking for all their slots first
lets the memory system fetch them together instead of one miss after another.
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


def _hint(context, builder, array_type, array, indices):
    """Emit the prefetch of array[indices] (every index in range)."""
    data = context.make_array(array_type)(context, builder, array)
    pointer = cgutils.get_item_pointer(context, builder, array_type, data, indices, wraparound=False)
    byte_pointer = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    hint = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch.p0")
    # read (0), keep in all cache levels (3), data cache (1)
    builder.call(hint, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])


@intrinsic
def prefetch(typingctx, array, index):
    """Hint that array[index] (1-d, index in range) is read soon; no effect on results."""
    def codegen(context, builder, signature, args):
        _hint(context, builder, signature.args[0], args[0], [args[1]])
        return context.get_dummy_value()
    return types.void(array, index), codegen


@intrinsic
def prefetch_row(typingctx, array, row):
    """Hint that the start of row `row` (in range) of a 2-d array is read soon."""
    def codegen(context, builder, signature, args):
        zero = context.get_constant(signature.args[1], 0)
        _hint(context, builder, signature.args[0], args[0], [args[1], zero])
        return context.get_dummy_value()
    return types.void(array, row), codegen
