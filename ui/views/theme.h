// Light and dark application palettes (View > Theme), remembered in QSettings under "view/theme".
#pragma once

#include <QColor>
#include <QPalette>

namespace carbon::ui {

enum class Theme { Light, Dark };

QPalette themePalette(Theme theme);
// Sets the palette on the application and stores the choice in QSettings.
void applyTheme(Theme theme);
// The stored choice (Light when none).
Theme savedTheme();
// The colour of a base letter wherever bases are drawn (editor, logos, heat map): A green, C blue,
// G orange, T red, anything else grey.
QColor baseColor(char c);

}  // namespace carbon::ui
