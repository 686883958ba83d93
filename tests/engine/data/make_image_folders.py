# Writes the image folders of test_ImageFolder.cpp into argv[1], with PIL, and what PIL (and
# torchvision's Resize + CenterCrop, written out below) make of every image, as .npy files.
import os, sys, shutil
import numpy as np
from PIL import Image
root = sys.argv[1]
rng = np.random.default_rng(11)
W, H = 12, 10

def noise(mode):
    if mode in ('L', 'P'):
        return rng.integers(0, 256, (H, W), dtype=np.uint8)
    if mode == 'RGB':
        return rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    if mode == 'RGBA':
        return rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
    if mode == 'LA':
        return rng.integers(0, 256, (H, W, 2), dtype=np.uint8)

def smooth(mode):
    # JPEG-friendly: gradients plus a little noise
    y, x = np.mgrid[0:H, 0:W]
    base = np.stack([x * 20, y * 25, (x + y) * 10], -1) + rng.integers(0, 30, (H, W, 3))
    img = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), 'RGB')
    return img.convert(mode)

def save(rel, img, **kw):
    path = os.path.join(root, 'folder', rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img.save(path, **kw)

save('a_square/0_rgb.png', Image.fromarray(noise('RGB'), 'RGB'))
save('a_square/1_grey.png', Image.fromarray(noise('L'), 'L'))
save('a_square/2_palette.png', Image.fromarray(noise('RGB'), 'RGB').convert('P', palette=Image.ADAPTIVE, colors=12), bits=4)
save('a_square/3_rgba.png', Image.fromarray(noise('RGBA'), 'RGBA'))
save('a_square/4_color.jpg', smooth('RGB'), format='JPEG', quality=90)
save('a_square/5_grey.JPEG', smooth('L'), format='JPEG', quality=85)
open(os.path.join(root, 'folder/a_square/notes.txt'), 'w').write('not an image')
save('b_circle/0_la.png', Image.fromarray(noise('LA'), 'LA'))
save('b_circle/1_bits.PNG', Image.fromarray(noise('L'), 'L').convert('1'))
save('b_circle/2_rgb.jpeg', smooth('RGB'), format='JPEG', quality=75, subsampling=2)
save('b_circle/sub/3_rgb.png', Image.fromarray(noise('RGB'), 'RGB'))
save('b_circle/.hidden/4.png', Image.fromarray(noise('RGB'), 'RGB'))
save('c_noise/0.png', Image.fromarray(noise('RGB'), 'RGB'))
save('c_noise/1.jpg', smooth('RGB'), format='JPEG', quality=95, subsampling=0)
save('.ipynb_checkpoints/x/0.png', Image.fromarray(noise('RGB'), 'RGB'))

def tv_resize_crop(img, size):
    # torchvision: Resize(size) (shorter side) then CenterCrop(size), on a PIL image
    w, h = img.size
    short, long = (w, h) if w <= h else (h, w)
    new_short, new_long = size, int(size * long / short)
    nw, nh = (new_short, new_long) if w <= h else (new_long, new_short)
    if (nw, nh) != (w, h):
        img = img.resize((nw, nh), Image.BILINEAR)
    top = int(round((nh - size) / 2.0)); left = int(round((nw - size) / 2.0))
    return img.crop((left, top, left + size, top + size))

os.makedirs(os.path.join(root, 'ref'), exist_ok=True)
folder = os.path.join(root, 'folder')
for dirpath, dirnames, filenames in os.walk(folder):
    for f in filenames:
        if f.endswith('.txt'):
            continue
        p = os.path.join(dirpath, f)
        rel = os.path.relpath(p, folder).replace('/', '__')
        im = Image.open(p)
        rgb = im.convert('RGB')
        np.save(os.path.join(root, 'ref', rel + '.rgb.npy'), np.asarray(rgb))
        np.save(os.path.join(root, 'ref', rel + '.l.npy'), np.asarray(im.convert('L')))
        np.save(os.path.join(root, 'ref', rel + '.crop8.npy'), np.asarray(tv_resize_crop(rgb, 8)))
        np.save(os.path.join(root, 'ref', rel + '.stretch8.npy'), np.asarray(rgb.resize((8, 8), Image.BILINEAR)))

# Resizing: one RGB and one grey source, several target sizes.
src = Image.fromarray(noise('RGB'), 'RGB')
src.save(os.path.join(root, 'resize_src.png'))
for (w, h) in [(5, 7), (23, 17), (12, 4), (3, 10), (40, 40), (1, 1)]:
    np.save(os.path.join(root, 'ref', 'resize_%dx%d.npy' % (w, h)), np.asarray(src.resize((w, h), Image.BILINEAR)))
tall = Image.fromarray(rng.integers(0, 256, (31, 9), dtype=np.uint8), 'L')
tall.save(os.path.join(root, 'tall.png'))
np.save(os.path.join(root, 'ref', 'tall_crop6.npy'), np.asarray(tv_resize_crop(tall, 6)))
np.save(os.path.join(root, 'ref', 'tall_crop13.npy'), np.asarray(tv_resize_crop(tall, 13)))

# Corrupt copies next to good images.
bad = os.path.join(root, 'bad')
os.makedirs(bad + '/x', exist_ok=True); os.makedirs(bad + '/y', exist_ok=True)
for i in range(4):
    Image.fromarray(noise('RGB'), 'RGB').save('%s/x/%d_good.png' % (bad, i))
    smooth('RGB').save('%s/y/%d_good.jpg' % (bad, i), quality=90)
good_png = open('%s/x/0_good.png' % bad, 'rb').read()
good_jpg = open('%s/y/0_good.jpg' % bad, 'rb').read()
open('%s/x/1_truncated.png' % bad, 'wb').write(good_png[:len(good_png) // 2])
open('%s/x/2_empty.png' % bad, 'wb').write(b'')
open('%s/y/1_garbage.jpg' % bad, 'wb').write(bytes(rng.integers(0, 256, 300, dtype=np.uint8)))
open('%s/y/2_truncated.jpg' % bad, 'wb').write(good_jpg[:len(good_jpg) * 2 // 3])

# A task a small model learns: dark against bright grey squares, and a folder of other classes.
for name, (lo, hi) in [('bright', (170, 230)), ('dark', (20, 80))]:
    d = os.path.join(root, 'task', name)
    os.makedirs(d, exist_ok=True)
    for i in range(24):
        Image.fromarray(rng.integers(lo, hi, (8, 8), dtype=np.uint8), 'L').save('%s/%02d.png' % (d, i))
for name in ['cats', 'dogs']:
    d = os.path.join(root, 'other', name)
    os.makedirs(d, exist_ok=True)
    Image.fromarray(rng.integers(0, 256, (8, 8), dtype=np.uint8), 'L').save(d + '/0.png')
os.makedirs(os.path.join(root, 'empty_class', 'a'), exist_ok=True)
os.makedirs(os.path.join(root, 'empty_class', 'b'), exist_ok=True)
shutil.copy(os.path.join(root, 'tall.png'), os.path.join(root, 'empty_class', 'a', 't.png'))
