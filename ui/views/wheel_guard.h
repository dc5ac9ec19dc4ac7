// The mouse wheel over a panel scrolls the panel: a spin box or combo box under the pointer takes
// the wheel only when it has the keyboard focus (clicked or tabbed into), so that no value (a
// window of 8,192 bp, the number of designs) changes because the pointer passed over it while the
// panel was scrolled. Elsewhere the wheel goes to the scroll area around it.
#pragma once

class QWidget;

namespace carbon::ui {

// Guards every spin box and combo box inside `root` (those there now).
void guardWheel(QWidget* root);

}  // namespace carbon::ui
