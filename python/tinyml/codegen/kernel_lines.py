"""tinyml-kernel-lines: every op's location becomes a line of one synthetic
file, its kernel's number (see `tinyml-number-kernels`), so that a DWARF
line table maps each instruction of the object to its kernel.

Run on the LLVM dialect, before `ensure-debug-info-scope-on-llvm-func
{emission-kind=LineTablesOnly}`, which gives each function the debug scope
translation needs to emit the table. An op of one kernel gets
`loc("<file>":<number>:0)`; every other op (the function's glue, and an op
an upstream pass merged from two kernels) and the module and functions
themselves get line 0, LLVM's "no source line". The file is named without a
directory, and no other location is left, so the object's debug
information names no path of the machine that built it. The line table
lives in `.debug_line`, which is not loaded into flash.
"""
from __future__ import annotations

from mlir import ir

from ..conversion.number_kernels import kernel_number
from ..pipeline.registry import Option, Pass, register


@register
class KernelLines(Pass):
    name = "tinyml-kernel-lines"
    summary = "Make every location a line of one file: its kernel's number (0 outside kernels)"
    options = (
        Option("file", str, "model.kernels", "the synthetic file the lines belong to"),
    )

    def apply(self, module):
        outside = ir.Location.file(self.file, 0, 0)
        lines: dict[int, ir.Location] = {}
        # Reading a location's kernel number prints it; neighbouring ops
        # mostly share one location, and comparing locations is cheap.
        previous: list[ir.Location] = []

        def visit(op):
            op = op.operation
            location = op.location
            if not previous or location != previous[0]:
                number = kernel_number(location)
                if number is not None and number not in lines:
                    lines[number] = ir.Location.file(self.file, number, 0)
                previous[:] = [location, outside if number is None else lines[number]]
            op.location = previous[1]
            return ir.WalkResult.ADVANCE

        module.walk(visit, ir.WalkOrder.PRE_ORDER)
