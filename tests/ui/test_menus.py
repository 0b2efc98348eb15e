"""Menus are found by object name, never by their (translated) titles (issue #20 point 4)."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

from tuneplan.ui import i18n, menus


def _bar_menus(window):
    return [a.menu() for a in window.menuBar().actions() if a.menu() is not None]


def test_the_window_names_its_menus_and_views_find_them(window):
    named = {m.objectName(): m for m in _bar_menus(window)}
    assert sorted(named) == sorted([menus.FILE_MENU, menus.EDIT_MENU, menus.VIEW_MENU, menus.TOOLS_MENU,
                                    menus.PRESETS_MENU, menus.HELP_MENU])
    assert menus.file_menu(window) is named[menus.FILE_MENU]
    assert menus.view_menu(window) is named[menus.VIEW_MENU]
    assert menus.tools_menu(window) is named[menus.TOOLS_MENU]
    assert window.prices_action in named[menus.TOOLS_MENU].actions()
    # the library's entries come before File → Export chart, Export report right after it
    file_actions = named[menus.FILE_MENU].actions()
    chart = menus.submenu_action(named[menus.FILE_MENU], menus.EXPORT_CHART_MENU)
    assert chart is not None and window.export_vram_action in chart.menu().actions()
    index = file_actions.index(chart)
    assert file_actions[index + 1] is window.export_report_action
    assert file_actions.index(window.library_action) < index
    assert len(_bar_menus(window)) == len(named)  # no menu twice


def test_a_menu_is_found_by_name_whatever_its_title(qtbot):
    w = QMainWindow()
    qtbot.addWidget(w)
    view = menus.view_menu(w)
    assert view.objectName() == menus.VIEW_MENU
    view.setTitle("视图(&V)")  # a title in another language does not make a second View menu
    assert menus.view_menu(w) is view
    i18n.install_language_menu(w)
    assert _bar_menus(w) == [view]
    other = w.menuBar().addMenu("&File")  # a menu with File's title but not its name is not File
    assert menus.file_menu(w) is not other
    assert menus.submenu_action(view, "noSuchMenu") is None
