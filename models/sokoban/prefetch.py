"""A compiled hint to the processor to load an array element into the cache ahead of its use.

The push engine looks each child up in a hash table several times larger than the cache; the
look-ups of one expansion do not depend on one another, so asking for all their slots first
lets the memory system fetch them together instead of one miss after another.
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Hint that array[index] (1-d, index in range) is read soon; no effect on results."""
    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        data = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, data, [args[1]], wraparound=False)
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch.p0")
        # read (0), keep in all cache levels (3), data cache (1)
        builder.call(hint, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(array, index), codegen
